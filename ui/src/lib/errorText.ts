// An engine error as a sentence a user acts on. The engine's message already says what went
// wrong and what to do; the kind's name ("Invalid input", "Not found") only adds jargon, so it
// is left out for those kinds and kept as a lead-in where it tells something the message may
// not (the provider refused the key, the database is locked, …).
import type { ErrorKind, IpcError } from '../bindings';
import { t } from '../i18n/index.svelte';

/** Kinds whose message alone reads as the explanation. */
const MESSAGE_ONLY: ReadonlySet<ErrorKind> = new Set(['invalid_input', 'not_found']);

/** The message with its first letter capitalized. */
export function sentence(message: string): string {
  const text = message.trim();
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The heading shown above an error's message, or null when the message says it all. */
export function errorHeading(kind: ErrorKind): string | null {
  return MESSAGE_ONLY.has(kind) ? null : t(`error.${kind}` as const);
}

/** An error in one line: the heading (when it adds anything) and the message. */
export function errorText(error: IpcError): string {
  const heading = errorHeading(error.kind);
  const message = sentence(error.message);
  if (message === '') return heading ?? t(`error.${error.kind}` as const);
  return heading ? `${heading}: ${message}` : message;
}
