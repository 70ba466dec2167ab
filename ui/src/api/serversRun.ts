// Running MCP servers: start, stop, restart, states, logs, what a server offers, calling a tool
// and the tools' approval policies (src-tauri/src/commands/servers_run.rs). `name` is a server's
// name or id.
import type { Approval, JsonValue, PromptInfo, ResourceInfo, ServerLogs, ToolInfo, ToolResult } from '../bindings';
import * as commands from './commands';

export { serverStates } from './commands';

/** Starts a server and resolves once it is ready (rejects with why not). */
export function startServer(name: string): Promise<void> {
  return commands.startServer({ name });
}

/** Stops a server; false when it was not running. */
export function stopServer(name: string): Promise<boolean> {
  return commands.stopServer({ name });
}

export function restartServer(name: string): Promise<void> {
  return commands.restartServer({ name });
}

/** A server's stderr lines and MCP log messages, oldest first. */
export function serverLogs(name: string): Promise<ServerLogs> {
  return commands.serverLogs({ name });
}

export function serverTools(name: string): Promise<ToolInfo[]> {
  return commands.serverTools({ name });
}

export function serverResources(name: string): Promise<ResourceInfo[]> {
  return commands.serverResources({ name });
}

export function serverPrompts(name: string): Promise<PromptInfo[]> {
  return commands.serverPrompts({ name });
}

/** Calls a tool of a running server with JSON arguments (checked against its schema). */
export function callTool(server: string, tool: string, args: JsonValue): Promise<ToolResult> {
  return commands.callTool({ server, tool, args });
}

/** The approval policies the user set for a server's tools, by tool name. */
export function toolPolicies(server: string): Promise<Record<string, Approval>> {
  return commands.toolPolicies({ server });
}

/** Sets (or with `null` clears) one tool's approval policy. */
export function setToolPolicy(server: string, tool: string, policy: Approval | null): Promise<void> {
  return commands.setToolPolicy({ server, tool, policy });
}
