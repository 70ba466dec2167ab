// What a tool-call card shows: the engine's `ToolResult` (bindings.ts) and where a call stands,
// also for a call in the chat (its `CallStatus` from chatState.ts, turned into the card's terms).
import type { ApprovalAnswer, JsonValue, ResultPart, ToolResult } from '../bindings';
import type { CallStatus } from './chatState';

export type { ResultPart } from '../bindings';

/** Where a call stands. */
export type ToolCallStatus =
  | { state: 'proposed' }
  | { state: 'pending-approval' }
  | { state: 'running'; progress?: number; total?: number | null; message?: string | null }
  | { state: 'done'; result: ToolResult }
  | { state: 'error'; message: string; result?: ToolResult }
  | { state: 'denied' };

/** The answers to an approval question (the engine's `ApprovalAnswer`), in the order offered. */
export const APPROVAL_ANSWERS = ['allow_once', 'allow_for_chat', 'allow_always', 'deny'] as const satisfies readonly ApprovalAnswer[];

// Compile-time check that APPROVAL_ANSWERS offers every answer.
type UnofferedAnswers = Exclude<ApprovalAnswer, (typeof APPROVAL_ANSWERS)[number]>;
const allAnswersOffered: [UnofferedAnswers] extends [never] ? true : UnofferedAnswers = true;
void allAnswersOffered;

/** Whether `value` is a well-formed result part (tool results reach the chat as plain JSON). */
function isPart(value: unknown): value is ResultPart {
  if (typeof value !== 'object' || value === null) return false;
  const part = value as Record<string, unknown>;
  switch (part.type) {
    case 'text':
      return typeof part.text === 'string';
    case 'image':
    case 'audio':
      return typeof part.mime === 'string' && typeof part.data === 'string';
    case 'resource_link':
      return typeof part.uri === 'string' && typeof part.name === 'string';
    case 'resource': {
      const body = part.body as { kind?: unknown; value?: unknown } | null | undefined;
      return typeof part.uri === 'string' && (body?.kind === 'text' || body?.kind === 'blob') && typeof body.value === 'string';
    }
    default:
      return false;
  }
}

/** A tool result as the chat holds it (JSON of the engine's `ToolResult`) in the card's terms;
 * malformed parts are left out. */
export function resultOf(content: unknown, isError: boolean): ToolResult {
  const c = (typeof content === 'object' && content !== null ? content : {}) as { content?: unknown; structured?: unknown };
  const parts = Array.isArray(c.content) ? c.content.filter(isPart) : [];
  return { content: parts, structured: (c.structured ?? null) as JsonValue | null, is_error: isError };
}

/** Where a chat's tool call stands, as its card shows it. */
export function cardStatus(status: CallStatus | undefined): ToolCallStatus {
  switch (status?.kind) {
    case undefined:
    case 'proposed':
      return { state: 'proposed' };
    case 'waiting':
      return { state: 'pending-approval' };
    case 'running':
      return { state: 'running', progress: status.progress, total: status.total, message: status.message };
    case 'done':
      if (refused(status.content)) return { state: 'denied' };
      return { state: 'done', result: resultOf(status.content, status.isError) };
  }
}

/** Whether a stored result says the call was refused (the user's answer or the policy): the
 * engine marks its content `"denied": true` (`vocab::chat::DENIED`). */
function refused(content: unknown): boolean {
  return typeof content === 'object' && content !== null && (content as { denied?: unknown }).denied === true;
}

/** Images shown inline: raster types a data: URL can carry under the CSP. */
const SHOWN_IMAGES = /^image\/(png|jpeg|gif|webp|avif|bmp)$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A `data:` URL for an image part, or null when it is not a safe raster image. */
export function imageUrl(part: Extract<ResultPart, { type: 'image' }>): string | null {
  const mime = part.mime.toLowerCase();
  const data = part.data.replace(/\s+/g, '');
  return SHOWN_IMAGES.test(mime) && BASE64.test(data) ? `data:${mime};base64,${data}` : null;
}

/** The result as text: text parts, then the structured result, links and resources as lines. */
export function resultText(result: ToolResult): string {
  const lines = result.content.flatMap((part): string[] => {
    switch (part.type) {
      case 'text':
        return [part.text];
      case 'resource_link':
        return [`${part.title ?? part.name} <${part.uri}>`];
      case 'resource':
        return [part.body.kind === 'text' ? part.body.value : `<${part.uri}>`];
      default:
        return [];
    }
  });
  if (lines.length === 0 && result.structured !== undefined && result.structured !== null) {
    lines.push(JSON.stringify(result.structured, null, 2));
  }
  return lines.join('\n');
}

/** Pretty JSON for arguments (strings that hold JSON are shown parsed). */
export function prettyJson(value: unknown): string {
  if (typeof value === 'string') {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value, null, 2) ?? 'null';
}

/** How many characters of a long string value an approval card shows before folding it. */
export const FOLD_CHARS = 200;

/**
 * `value` with every string longer than `max` characters cut to its start plus a note of how
 * much is hidden (`folded` says whether any was), for approval cards that show arguments.
 */
export function foldLongStrings(value: unknown, max = FOLD_CHARS): { value: unknown; folded: boolean } {
  let folded = false;
  const fold = (v: unknown): unknown => {
    if (typeof v === 'string' && v.length > max) {
      folded = true;
      return `${v.slice(0, max)}… (+${v.length - max} characters)`;
    }
    if (Array.isArray(v)) return v.map(fold);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fold(x)]));
    return v;
  };
  return { value: fold(value), folded };
}

/** The preview of a long text: at most `lines` lines and `chars` characters. */
export function preview(text: string, lines = 8, chars = 600): { text: string; cut: boolean } {
  const byLines = text.split('\n').slice(0, lines).join('\n');
  const short = byLines.length > chars ? byLines.slice(0, chars) : byLines;
  return { text: short, cut: short.length < text.length };
}
