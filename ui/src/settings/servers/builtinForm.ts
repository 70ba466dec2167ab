// The server form's "Built-in" choice: one of the engine's in-process servers (time, fetch,
// filesystem; mcp/builtin/ in the engine) with its own settings — fetch may be allowed local and
// private addresses, filesystem gets its folders (none: the roots of Settings → General) — and
// its conversion to a `ServerConfig` whose transport is `builtin`, as the engine reads an
// mcpServers entry `{"builtin": "time"}`. The fields every server has (name, timeouts, approval,
// enabled, start with the app) stay in the form's draft and are checked by lib/serverForm.ts.
import type { ServerConfig } from '../../bindings';
import { configFrom, draftFrom, type DraftError, type DraftErrors, type ServerDraft, type TransportKind } from '../../lib/serverForm';

export type BuiltinName = 'time' | 'fetch' | 'filesystem';

/** The built-in servers, in the order the form offers them. */
export const BUILTINS: readonly BuiltinName[] = ['time', 'fetch', 'filesystem'];

/** What the form's connection choice can be: a transport the draft describes, or a built-in. */
export type FormKind = TransportKind | 'builtin';

export type BuiltinDraft = {
  server: BuiltinName;
  /** fetch: may reach local and private addresses. */
  allowPrivate: boolean;
  /** filesystem: absolute folders, one per line (none: the roots). */
  folders: string;
};

export type BuiltinErrors = { folders?: DraftError };

const lines = (text: string) => text.split('\n').map((l) => l.trim()).filter((l) => l !== '');

/** Unix (`/…`), Windows (`C:\…`, `C:/…`) or UNC (`\\host\…`) absolute paths. */
const isAbsolute = (path: string) => path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith('\\\\');

const isBuiltinName = (name: string): name is BuiltinName => (BUILTINS as readonly string[]).includes(name);

/** The form's connection choice for `config` (a new server: a local command). */
export function kindOf(config?: ServerConfig): FormKind {
  return config?.transport.type === 'builtin' ? 'builtin' : draftFrom(config).kind;
}

/** The built-in settings of `config`, or the defaults (time) for any other server. */
export function builtinDraftFrom(config?: ServerConfig): BuiltinDraft {
  const t = config?.transport;
  if (t?.type !== 'builtin') return { server: 'time', allowPrivate: false, folders: '' };
  return { server: isBuiltinName(t.server) ? t.server : 'time', allowPrivate: t.allowPrivate, folders: t.folders.join('\n') };
}

/**
 * The configuration of a built-in server named and set up as `draft` says (its connection
 * fields are not used), or the errors: the draft's by field, the built-in's own apart.
 */
export function builtinConfigFrom(
  draft: ServerDraft,
  builtin: BuiltinDraft,
  taken: readonly string[],
): { ok: true; config: ServerConfig } | { ok: false; errors: DraftErrors; builtinErrors: BuiltinErrors } {
  // The shared fields are checked as for any server; the command here only stands in for the
  // connection a built-in does not have, and is replaced below.
  const shared = configFrom({ ...draft, kind: 'stdio', command: builtin.server, args: '', env: '', inheritEnv: '', cwd: '' }, taken);
  const folders = builtin.server === 'filesystem' ? lines(builtin.folders) : [];
  const relative = folders.find((f) => !isAbsolute(f));
  const builtinErrors: BuiltinErrors = relative ? { folders: { key: 'serverForm.folderNotAbsolute', params: { line: relative } } } : {};
  if (!shared.ok || relative) return { ok: false, errors: shared.ok ? {} : shared.errors, builtinErrors };
  const { inheritEnv: _inheritEnv, allowPrivate: _allowPrivate, ...common } = shared.config;
  return {
    ok: true,
    config: {
      ...common,
      transport: { type: 'builtin', server: builtin.server, allowPrivate: builtin.server === 'fetch' && builtin.allowPrivate, folders },
    },
  };
}
