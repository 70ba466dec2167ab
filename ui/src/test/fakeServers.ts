// The server commands of the fake backend: an in-memory `mcp_servers` table with the engine's
// rules that the UI depends on (unique names, import preview/skip/replace, export).
import type { ImportPreview, IpcError, ServerConfig, ServerRecord } from '../bindings';
import { summary } from '../lib/serverForm';

export const UNHANDLED = Symbol('unhandled');

let counter = 0;

export function serverRecord(config: Partial<ServerConfig> & { name: string }): ServerRecord {
  const now = Date.now();
  return {
    id: `s${++counter}`,
    config: {
      transport: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'], env: {} },
      enabled: true,
      startupTimeoutMs: 60000,
      callTimeoutMs: 60000,
      autoStart: true,
      approval: 'ask',
      ...config,
    },
    createdAt: now,
    updatedAt: now,
  };
}

const invalid = (message: string): IpcError => ({ kind: 'invalid_input', message });

function parseDocument(json: string): ServerConfig[] {
  let doc: unknown;
  try {
    doc = JSON.parse(json);
  } catch (error) {
    throw invalid(`not JSON: ${String(error)}`);
  }
  const root = (doc as { mcpServers?: unknown }).mcpServers ?? doc;
  if (typeof root !== 'object' || root === null) throw invalid('expected an mcpServers object');
  return Object.entries(root as Record<string, Record<string, unknown>>).map(([name, entry]) => {
    const base = { name, enabled: entry.disabled !== true, startupTimeoutMs: 60000, callTimeoutMs: 60000, autoStart: true, approval: entry.approval === 'allow' ? ('allow' as const) : ('ask' as const) };
    if (typeof entry.url === 'string') {
      return { ...base, transport: { type: entry.type === 'sse' ? 'sse' : 'http', url: entry.url, headers: (entry.headers ?? {}) as Record<string, string> } } as ServerConfig;
    }
    if (typeof entry.command !== 'string') throw invalid(`server "${name}": "command" is missing`);
    return { ...base, transport: { type: 'stdio', command: entry.command, args: (entry.args ?? []) as string[], env: (entry.env ?? {}) as Record<string, string> } };
  });
}

function preview(rows: Map<string, ServerRecord>, json: string, replace: boolean): ImportPreview {
  const names = new Set([...rows.values()].map((r) => r.config.name));
  const report = { added: [] as string[], skipped: [] as string[], replaced: [] as string[] };
  const entries = parseDocument(json).map((config) => {
    const action = !names.has(config.name) ? 'add' : replace ? 'replace' : 'skip';
    report[action === 'add' ? 'added' : action === 'replace' ? 'replaced' : 'skipped'].push(config.name);
    return { name: config.name, action, enabled: config.enabled, commandLine: summary(config), trust: config.approval === 'allow' ? [{ field: 'approval', value: 'allow', widens: true }] : [] } as const;
  });
  return { report, entries };
}

function find(rows: Map<string, ServerRecord>, idOrName: string): ServerRecord {
  const row = rows.get(idOrName) ?? [...rows.values()].find((r) => r.config.name === idOrName);
  if (!row) throw { kind: 'not_found', message: `server ${idOrName} not found` } satisfies IpcError;
  return row;
}

function checkName(rows: Map<string, ServerRecord>, name: string, except?: string): void {
  if ([...rows.values()].some((r) => r.config.name === name && r.id !== except)) {
    throw invalid(`a server named "${name}" already exists`);
  }
}

/** The OAuth client secrets "in the keychain", by server name (never sent back). */
export const clientSecrets = new Map<string, string>();

/** Handles a server command, or returns UNHANDLED. */
export function serverCommand(rows: Map<string, ServerRecord>, cmd: string, args: Record<string, unknown>): unknown {
  switch (cmd) {
    case 'list_servers':
      return [...rows.values()];
    case 'server_states':
      return [];
    case 'preview_import_servers':
      return preview(rows, String(args.json), Boolean(args.replace));
    case 'import_servers': {
      const plan = preview(rows, String(args.json), Boolean(args.replace));
      for (const config of parseDocument(String(args.json))) {
        const existing = [...rows.values()].find((r) => r.config.name === config.name);
        if (!existing) {
          const record = serverRecord(config);
          rows.set(record.id, record);
        } else if (args.replace) rows.set(existing.id, { ...existing, config });
      }
      return plan.report;
    }
    case 'add_server': {
      const config = args.input as ServerConfig;
      checkName(rows, config.name);
      const record = serverRecord(config);
      rows.set(record.id, record);
      return record;
    }
    case 'update_server': {
      const row = find(rows, String(args.id));
      const config = args.input as ServerConfig;
      checkName(rows, config.name, row.id);
      const record = { ...row, config, updatedAt: Date.now() };
      rows.set(row.id, record);
      return record;
    }
    case 'set_server_enabled': {
      const row = find(rows, String(args.id));
      const record = { ...row, config: { ...row.config, enabled: Boolean(args.enabled) } };
      rows.set(row.id, record);
      return record;
    }
    case 'remove_server': {
      const row = find(rows, String(args.id));
      rows.delete(row.id);
      clientSecrets.delete(row.config.name);
      return null;
    }
    case 'set_server_client_secret': {
      const name = find(rows, String(args.id)).config.name;
      if (typeof args.secret === 'string' && args.secret.trim()) clientSecrets.set(name, args.secret);
      else clientSecrets.delete(name);
      return null;
    }
    case 'server_client_secret_set':
      return clientSecrets.has(find(rows, String(args.id)).config.name);
    case 'export_servers': {
      // Like the engine: values blank unless asked for (the fake keeps them in the rows).
      const blank = (map: Record<string, string> | undefined) => Object.fromEntries(Object.keys(map ?? {}).map((k) => [k, '']));
      const transport = (t: ServerConfig['transport']) =>
        args.withSecrets ? t : t.type === 'stdio' ? { ...t, env: blank(t.env) } : t.type === 'builtin' ? t : { ...t, headers: blank(t.headers) };
      return JSON.stringify({ mcpServers: Object.fromEntries([...rows.values()].map((r) => [r.config.name, transport(r.config.transport)])) }, null, 2);
    }
    default:
      return UNHANDLED;
  }
}
