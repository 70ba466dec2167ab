// MCP content for the composer: resource templates, a resource's contents, a prompt expanded
// with its arguments (src-tauri/src/commands/mcp_content.rs).
import type { Prompt, ResourceContent, ResourceTemplateInfo } from '../bindings';
import * as commands from './commands';

/** A running server's resource templates (RFC 6570 URI templates). */
export function serverResourceTemplates(name: string): Promise<ResourceTemplateInfo[]> {
  return commands.serverResourceTemplates({ name });
}

/** Reads a resource of a running server. */
export function readResource(server: string, uri: string): Promise<ResourceContent[]> {
  return commands.readResource({ server, uri });
}

/** Expands a prompt of a running server with its arguments. */
export function getPrompt(server: string, name: string, args: Record<string, string>): Promise<Prompt> {
  return commands.getPrompt({ server, name, args });
}
