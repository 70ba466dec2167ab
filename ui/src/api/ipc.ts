// The one way to the engine: `call()` invokes a Tauri command and rejects with an `IpcError`,
// never with anything else, so callers can rely on `{ kind, message }`. Only the generated
// `commands.ts` calls it; the wrappers beside it call those functions.
import { invoke, type InvokeArgs } from '@tauri-apps/api/core';
import type { ErrorKind, IpcError } from '../bindings';

/** Every error kind the engine can report, in the order of `ErrorKind`. */
export const ERROR_KINDS = [
  'not_found',
  'invalid_input',
  'corrupt_database',
  'database_locked',
  'newer_schema',
  'io',
  'provider_auth',
  'model_not_found',
  'rate_limited',
  'context_length_exceeded',
  'tools_unsupported',
  'provider_unavailable',
  'provider_rejected',
  'secrets',
  'internal',
] as const satisfies readonly ErrorKind[];

// Compile-time check that ERROR_KINDS lists every kind.
type MissingKinds = Exclude<ErrorKind, (typeof ERROR_KINDS)[number]>;
const allKindsListed: [MissingKinds] extends [never] ? true : MissingKinds = true;
void allKindsListed;

export function isErrorKind(value: unknown): value is ErrorKind {
  return typeof value === 'string' && (ERROR_KINDS as readonly string[]).includes(value);
}

export function isIpcError(value: unknown): value is IpcError {
  return (
    typeof value === 'object' &&
    value !== null &&
    isErrorKind((value as { kind?: unknown }).kind) &&
    typeof (value as { message?: unknown }).message === 'string'
  );
}

/** Turns anything a command (or the IPC layer itself) rejected with into an `IpcError`. */
export function toIpcError(error: unknown): IpcError {
  if (isIpcError(error)) return { kind: error.kind, message: error.message };
  if (typeof error === 'object' && error !== null) {
    const { kind, message } = error as { kind?: unknown; message?: unknown };
    return {
      kind: isErrorKind(kind) ? kind : 'internal',
      message: typeof message === 'string' ? message : String(error),
    };
  }
  return { kind: 'internal', message: String(error) };
}

/** Invokes `command` with its arguments (or, for a command that reads the raw request, a raw
 * body and `options.headers`); rejects with an `IpcError`. */
export async function call<T>(command: string, args?: InvokeArgs, options?: { headers: Record<string, string> }): Promise<T> {
  try {
    return await invoke<T>(command, args, options);
  } catch (error) {
    throw toIpcError(error);
  }
}
