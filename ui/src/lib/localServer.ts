// The local server for Settings → Local server: the engine's commands (through `api`), and the
// snippets other apps' configs take.
export {
  addServeClient,
  listServeClients,
  localServerStatus,
  removeServeClient,
  revokeServeClientGrant,
  serveClientCalls,
  serveClientGrants,
  setLocalServer,
  setServeClientServers,
  setServeClientTools,
  serverStates,
  serverTools,
} from '../api';

/** How often an open list of a client's calls is read again, ms. */
export const CALLS_REFRESH_MS = 3000;

/** The `mcpServers` entry for an app that speaks streamable HTTP (Cursor, VS Code, Zed…). */
export function httpSnippet(url: string, token: string): string {
  const entry = { type: 'http', url, headers: { Authorization: `Bearer ${token}` } };
  return JSON.stringify({ mcpServers: { switchboard: entry } }, null, 2);
}

/** The `mcpServers` entry for an app that starts its servers itself (Claude Desktop). */
export function stdioSnippet(): string {
  const entry = { command: 'switchboard', args: ['mcp', 'serve', '--stdio'] };
  return JSON.stringify({ mcpServers: { switchboard: entry } }, null, 2);
}

/** The OpenAI-compatible API's base URL beside the MCP endpoint's URL (`…/mcp` → `…/v1`). */
export function openaiBase(url: string): string {
  return url.replace(/\/mcp$/, '/v1');
}

/** What an OpenAI client is given: the base URL, the token as its key, and a first model. */
export function openaiSnippet(url: string, token: string): string {
  return `base_url = "${openaiBase(url)}"\napi_key = "${token}"\nmodel = "local"`;
}

/** Server names from a comma-separated field; null (every server) when it is empty. */
export function serverList(text: string): string[] | null {
  const names = text.split(',').map((s) => s.trim()).filter(Boolean);
  return names.length ? names : null;
}
