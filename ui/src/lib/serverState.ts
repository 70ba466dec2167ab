// The running state of MCP servers as the supervisor reports it (`SupervisorEvent`, in
// bindings.ts). They arrive as the global Tauri event `mcp:server` (src-tauri/src/events.rs).
import type { SupervisorEvent } from '../bindings';

export type { ServerInfo, ServerState, SupervisorEvent } from '../bindings';

/** The Tauri event that carries `SupervisorEvent`s. */
export const SERVER_STATE_EVENT = 'mcp:server';

/** What the status light shows. */
export type Light = 'ready' | 'starting' | 'failed' | 'stopped' | 'disabled';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** Checks an event payload's shape (it crosses the IPC boundary). */
export function isSupervisorEvent(value: unknown): value is SupervisorEvent {
  if (!isObject(value) || typeof value.server !== 'string') return false;
  if (value.type === 'tools_changed') return true;
  if (value.type === 'authorization_needed') return typeof value.url === 'string';
  return value.type === 'state' && isObject(value.state) && typeof value.state.type === 'string';
}
