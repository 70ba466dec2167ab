// The MCP server configuration: list, import an `mcpServers` document, add, edit, enable,
// remove, client secrets, export (src-tauri/src/commands/servers.rs).
import type { ImportPreview, ImportReport, ServerConfig, ServerRecord } from '../bindings';
import * as commands from './commands';

export { listServers } from './commands';

/** What importing an `mcpServers` document would do; changes nothing. */
export function previewImportServers(json: string, replace: boolean): Promise<ImportPreview> {
  return commands.previewImportServers({ json, replace });
}

export function importServers(json: string, replace: boolean): Promise<ImportReport> {
  return commands.importServers({ json, replace });
}

export function addServer(input: ServerConfig): Promise<ServerRecord> {
  return commands.addServer({ input });
}

/** Replaces the configuration of the server with this id (its name may change). */
export function updateServer(id: string, input: ServerConfig): Promise<ServerRecord> {
  return commands.updateServer({ id, input });
}

export function setServerEnabled(id: string, enabled: boolean): Promise<ServerRecord> {
  return commands.setServerEnabled({ id, enabled });
}

export function removeServer(id: string): Promise<void> {
  return commands.removeServer({ id });
}

/** Sets (or with `null` forgets) a remote server's OAuth client secret or PEM private key. */
export function setServerClientSecret(id: string, secret: string | null): Promise<void> {
  return commands.setServerClientSecret({ id, secret });
}

/** Whether a remote server has an OAuth client secret or private key in the keychain. */
export function serverClientSecretSet(id: string): Promise<boolean> {
  return commands.serverClientSecretSet({ id });
}

/** Every server as an `mcpServers` JSON document (env and header values only `withSecrets`). */
export function exportServers(withSecrets = false): Promise<string> {
  return commands.exportServers({ withSecrets });
}
