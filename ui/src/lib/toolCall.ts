// What a tool-call card shows. `ToolResultView` mirrors the engine's `ToolResult`/`ResultPart`
// (src-tauri/engine/src/mcp/types.rs, serialized as is); when those are exported to
// bindings.ts, import them from there instead.

export type ResultPart =
  | { type: 'text'; text: string }
  | { type: 'image'; mime: string; data: string }
  | { type: 'audio'; mime: string; data: string }
  | { type: 'resource_link'; uri: string; name: string; title?: string | null; description?: string | null; mime?: string | null }
  | { type: 'resource'; uri: string; mime?: string | null; body: unknown };

export type ToolResultView = { content: ResultPart[]; structured?: unknown; is_error: boolean };

/** Where a call stands. */
export type ToolCallStatus =
  | { state: 'pending-approval' }
  | { state: 'running'; progress?: number; total?: number | null; message?: string | null }
  | { state: 'done'; result: ToolResultView }
  | { state: 'error'; message: string; result?: ToolResultView }
  | { state: 'denied' };

/** The user's answer to an approval request. */
export type ApprovalDecision = 'allow_once' | 'allow_always' | 'allow_chat' | 'deny';

export const APPROVAL_DECISIONS: readonly ApprovalDecision[] = ['allow_once', 'allow_chat', 'allow_always', 'deny'];

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
export function resultText(result: ToolResultView): string {
  const lines = result.content.flatMap((part): string[] => {
    switch (part.type) {
      case 'text':
        return [part.text];
      case 'resource_link':
        return [`${part.title ?? part.name} <${part.uri}>`];
      case 'resource': {
        const body = part.body as { text?: unknown } | null;
        return [typeof body?.text === 'string' ? body.text : `<${part.uri}>`];
      }
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

/** The preview of a long text: at most `lines` lines and `chars` characters. */
export function preview(text: string, lines = 8, chars = 600): { text: string; cut: boolean } {
  const byLines = text.split('\n').slice(0, lines).join('\n');
  const short = byLines.length > chars ? byLines.slice(0, chars) : byLines;
  return { text: short, cut: short.length < text.length };
}
