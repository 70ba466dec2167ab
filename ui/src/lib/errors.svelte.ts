// The errors shown in the error banner, newest last, and the one way to read a failure as an
// `IpcError` (`toIpcError`, for components that show an error in place instead).
import type { IpcError } from '../bindings';
import { toIpcError } from '../api';

export { toIpcError };

export type ShownError = IpcError & { id: number };

const MAX_SHOWN = 3;
let nextId = 1;
let shown = $state<ShownError[]>([]);

export function shownErrors(): readonly ShownError[] {
  return shown;
}

/** Shows a failed command's error (anything thrown is normalized first). */
export function reportError(error: unknown): void {
  shown = [...shown, { ...toIpcError(error), id: nextId++ }].slice(-MAX_SHOWN);
}

export function dismissError(id: number): void {
  shown = shown.filter((e) => e.id !== id);
}

export function clearErrors(): void {
  shown = [];
}
