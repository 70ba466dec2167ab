// MCP Apps in the chat: finding the App a stored tool result renders (`content.app`, written
// by the engine with the result), turning our tool results into MCP's wire form for the
// App (`ui/notifications/tool-result`, `tools/call` answers), and the App's way to the engine:
// its document's frame (`openAppView`, `closeAppView`) and its tool calls (`callAppTool`).
import * as api from '../api';
import type { AppCall, ApprovalAnswer, AppView, ToolResult } from '../bindings';
import type { McpToolResult } from './mcpAppBridge';

export { closeAppView, openAppView } from '../api';

/** The App stored with a tool result, if it has one (checked, since history is untrusted). */
export function appOf(content: unknown): AppView | null {
  const app = (content as { app?: unknown } | null)?.app as Partial<AppView> | undefined;
  if (!app || typeof app !== 'object') return null;
  const ok =
    typeof app.server === 'string' &&
    typeof app.tool === 'string' &&
    typeof app.resourceUri === 'string' &&
    typeof app.html === 'string' &&
    typeof app.csp === 'object' &&
    app.csp !== null;
  return ok ? (app as AppView) : null;
}

type Part = ToolResult['content'][number];

/** One of our result parts as an MCP content block. */
function block(part: Part): unknown {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image':
    case 'audio':
      return { type: part.type, mimeType: part.mime, data: part.data };
    case 'resource_link':
      return { type: 'resource_link', uri: part.uri, name: part.name, title: part.title ?? undefined, mimeType: part.mime ?? undefined };
    case 'resource': {
      const body = part.body.kind === 'text' ? { text: part.body.value } : { blob: part.body.value };
      return { type: 'resource', resource: { uri: part.uri, mimeType: part.mime ?? undefined, ...body } };
    }
  }
}

/** Our stored/returned tool result in MCP's wire form. */
export function toMcpResult(result: unknown): McpToolResult {
  const r = (result ?? {}) as Partial<ToolResult>;
  const content = Array.isArray(r.content) ? r.content.map((p) => block(p as Part)) : [];
  const out: McpToolResult = { content, isError: r.is_error === true };
  if (r.structured !== undefined && r.structured !== null) out.structuredContent = r.structured;
  return out;
}

/** The tool arguments as an object (the App's `tool-input`). */
export function toolInput(args: unknown): Record<string, unknown> {
  return typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}

/** The smallest and largest height an App frame may ask for (px). */
export const FRAME_HEIGHT = { min: 48, max: 1600, initial: 160 } as const;

/** A requested height, clamped. */
export function clampHeight(height: number | undefined, current: number): number {
  if (height === undefined) return current;
  return Math.min(FRAME_HEIGHT.max, Math.max(FRAME_HEIGHT.min, Math.ceil(height)));
}

/** The teardowns of the Apps on screen, so a conversation switch can tear them down first. */
const mounted = new Set<() => Promise<void>>();

/** Registers a shown App's teardown; returns its unregistration. */
export function onAppMounted(teardown: () => Promise<void>): () => void {
  mounted.add(teardown);
  return () => void mounted.delete(teardown);
}

/** Tears down every App on screen (each waits for its App's answer, within its limit). */
export async function teardownApps(): Promise<void> {
  await Promise.all([...mounted].map((teardown) => teardown()));
}

/** Runs an App's `tools/call` on its own server. When the policy asks the user, `ask` gets the
 * answer and the call is made again with it. Rejects with an `Error` whose message the App sees. */
export async function callAppTool(
  call: Omit<AppCall, 'approval'>,
  ask: () => Promise<ApprovalAnswer>,
): Promise<McpToolResult> {
  const run = (approval: ApprovalAnswer | null) =>
    api.appCallTool({ ...call, approval }).catch((e: { message: string }) => Promise.reject(new Error(e.message)));
  let outcome = await run(null);
  if (outcome.type === 'needs_approval') outcome = await run(await ask());
  if (outcome.type !== 'done') throw new Error('the call was not approved');
  return toMcpResult(outcome.result);
}
