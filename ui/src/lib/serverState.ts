// The running state of MCP servers as the supervisor reports it. These types mirror the
// engine's `ServerState`/`SupervisorEvent` (src-tauri/engine/src/mcp/supervisor.rs, serialized
// with `tag = "type"`, snake_case) which are not in bindings.ts yet; once they are exported,
// import them from there. They arrive as the global Tauri event `mcp://state`.

/** Who a server says it is. */
export type ServerInfo = {
  name: string;
  title: string | null;
  version: string;
  protocol_version: string;
  instructions: string | null;
};

export type ServerState =
  | { type: 'starting' }
  | { type: 'ready'; info: ServerInfo; tools: number }
  | { type: 'failed'; reason: string }
  | { type: 'stopped' }
  | { type: 'restarting'; attempt: number; in_ms: number };

export type SupervisorEvent =
  | { type: 'state'; server: string; state: ServerState }
  | { type: 'tools_changed'; server: string };

/** The Tauri event that carries `SupervisorEvent`s. */
export const SERVER_STATE_EVENT = 'mcp://state';

/** What the status light shows. */
export type Light = 'ready' | 'starting' | 'failed' | 'stopped' | 'disabled';

export function lightOf(state: ServerState | undefined, enabled: boolean): Light {
  if (!enabled) return 'disabled';
  switch (state?.type) {
    case 'ready':
      return 'ready';
    case 'starting':
    case 'restarting':
      return 'starting';
    case 'failed':
      return 'failed';
    default:
      return 'stopped';
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** Checks an event payload's shape (it crosses the IPC boundary). */
export function isSupervisorEvent(value: unknown): value is SupervisorEvent {
  if (!isObject(value) || typeof value.server !== 'string') return false;
  if (value.type === 'tools_changed') return true;
  return value.type === 'state' && isObject(value.state) && typeof value.state.type === 'string';
}
