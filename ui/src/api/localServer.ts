// The local server (Settings → Local server): the MCP endpoint other apps on this computer
// reach, switched on and off with its port, and the clients allowed to use it
// (src-tauri/src/commands/local_server.rs).
import type { LocalServerStatus, NewServeClient } from '../bindings';
import * as commands from './commands';

export { listServeClients, localServerStatus } from './commands';

export function setLocalServer(enabled: boolean, port: number): Promise<LocalServerStatus> {
  return commands.setLocalServer({ enabled, port });
}

/** Makes a client that may reach `servers` (null: all); its token comes back this once. */
export function addServeClient(name: string, servers: string[] | null): Promise<NewServeClient> {
  return commands.addServeClient({ name, servers });
}

export function removeServeClient(id: string): Promise<void> {
  return commands.removeServeClient({ id });
}

export function serveClientCalls(id: string) {
  return commands.serveClientCalls({ id });
}

/** The tools a client may call without asking. */
export function serveClientGrants(id: string) {
  return commands.serveClientGrants({ id });
}

/** Takes back a client's "always" for one tool. */
export function revokeServeClientGrant(id: string, server: string, tool: string): Promise<void> {
  return commands.revokeServeClientGrant({ id, server, tool });
}

/** Limits a client to `servers` (null: every server again). */
export function setServeClientServers(id: string, servers: string[] | null): Promise<void> {
  return commands.setServeClientServers({ id, servers });
}

/** Sets the tools of each server a client may see and call (`null`: all, a server left out keeps all). */
export function setServeClientTools(id: string, tools: Record<string, string[]> | null): Promise<void> {
  return commands.setServeClientTools({ id, tools });
}
