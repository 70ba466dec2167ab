// The server form's "Built-in" choice: one of the engine's in-process servers (time, fetch,
// filesystem, web; mcp/builtin/ in the engine) with its own settings — fetch and web may be
// allowed local and private addresses, filesystem gets its folders (none: the roots of Settings →
// General), web its search provider with the provider's URL or key (the key goes as env, which
// the engine keeps in the keychain and shows masked; the rest as settings) — and
// its conversion to a `ServerConfig` whose transport is `builtin`, as the engine reads an
// mcpServers entry `{"builtin": "time"}`. The fields every server has (name, timeouts, approval,
// enabled, start with the app) stay in the form's draft and are checked by lib/serverForm.ts.
import type { ServerConfig } from '../../bindings';
import { configFrom, draftFrom, type DraftError, type DraftErrors, type ServerDraft, type TransportKind } from '../../lib/serverForm';

export type BuiltinName = 'time' | 'fetch' | 'filesystem' | 'web';

/** The built-in servers, in the order the form offers them. */
export const BUILTINS: readonly BuiltinName[] = ['time', 'fetch', 'filesystem', 'web'];

export type SearchProvider = 'searxng' | 'brave' | 'tavily' | 'google';

/** The web server's search providers, in the order the form offers them. */
export const SEARCH_PROVIDERS: readonly SearchProvider[] = ['searxng', 'brave', 'tavily', 'google'];

/** The setting that holds each provider's key (SearXNG needs none). */
const KEY_OF: Record<SearchProvider, string | null> = {
  searxng: null,
  brave: 'BRAVE_API_KEY',
  tavily: 'TAVILY_API_KEY',
  google: 'GOOGLE_API_KEY',
};

/** Whether `provider` needs an API key. */
export const needsKey = (provider: SearchProvider) => KEY_OF[provider] !== null;

/** What the form's connection choice can be: a transport the draft describes, or a built-in. */
export type FormKind = TransportKind | 'builtin';

export type BuiltinDraft = {
  server: BuiltinName;
  /** fetch: may reach local and private addresses. */
  allowPrivate: boolean;
  /** filesystem: absolute folders, one per line (none: the roots). */
  folders: string;
  /** web: the search provider. */
  provider: SearchProvider;
  /** web, SearXNG: the instance's URL. */
  searxngUrl: string;
  /** web: the provider's API key (the engine's mask when one is stored and kept). */
  apiKey: string;
  /** web, Google: the Programmable Search engine id. */
  googleCx: string;
};

export type BuiltinErrors = { folders?: DraftError; searxngUrl?: DraftError; apiKey?: DraftError; googleCx?: DraftError };

const isSearchProvider = (name: string): name is SearchProvider => (SEARCH_PROVIDERS as readonly string[]).includes(name);

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
  const blank = { provider: 'searxng' as SearchProvider, searxngUrl: '', apiKey: '', googleCx: '' };
  if (t?.type !== 'builtin') return { server: 'time', allowPrivate: false, folders: '', ...blank };
  const settings = t.settings ?? {};
  const named = (settings.SEARCH_PROVIDER ?? '').trim().toLowerCase();
  // No provider named: the first whose URL or key is set, as the engine guesses.
  const guessed = SEARCH_PROVIDERS.find((p) => (p === 'searxng' ? settings.SEARXNG_URL : t.env?.[KEY_OF[p] ?? '']));
  const provider = isSearchProvider(named) ? named : (guessed ?? 'searxng');
  const key = KEY_OF[provider];
  return {
    server: isBuiltinName(t.server) ? t.server : 'time',
    allowPrivate: t.allowPrivate,
    folders: t.folders.join('\n'),
    provider,
    searxngUrl: settings.SEARXNG_URL ?? '',
    apiKey: key ? (t.env?.[key] ?? '') : '',
    googleCx: settings.GOOGLE_CSE_ID ?? '',
  };
}

const isHttpUrl = (text: string) => {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
};

/** The web server's env (its key) and settings from the draft, or the errors by field. */
function webSettings(builtin: BuiltinDraft): { env: Record<string, string>; settings: Record<string, string>; errors: BuiltinErrors } {
  const errors: BuiltinErrors = {};
  const settings: Record<string, string> = { SEARCH_PROVIDER: builtin.provider };
  const env: Record<string, string> = {};
  const url = builtin.searxngUrl.trim();
  if (builtin.provider === 'searxng') {
    if (!isHttpUrl(url)) errors.searxngUrl = { key: 'serverForm.searxngUrlInvalid' };
    settings.SEARXNG_URL = url;
  }
  const key = KEY_OF[builtin.provider];
  if (key) {
    if (builtin.apiKey.trim() === '') errors.apiKey = { key: 'serverForm.apiKeyMissing' };
    env[key] = builtin.apiKey.trim();
  }
  if (builtin.provider === 'google') {
    if (builtin.googleCx.trim() === '') errors.googleCx = { key: 'serverForm.googleCxMissing' };
    settings.GOOGLE_CSE_ID = builtin.googleCx.trim();
  }
  return { env, settings, errors };
}

/**
 * The name a built-in server gets when the form's is left empty: its own (`time`), else the
 * first of `time-2`, `time-3`… that no other server has.
 */
export function defaultBuiltinName(server: BuiltinName, taken: readonly string[]): string {
  if (!taken.includes(server)) return server;
  let n = 2;
  while (taken.includes(`${server}-${n}`)) n += 1;
  return `${server}-${n}`;
}

/**
 * The configuration of a built-in server named and set up as `draft` says (its connection
 * fields are not used; an empty name is the built-in's own, see `defaultBuiltinName`), or the
 * errors: the draft's by field, the built-in's own apart.
 */
export function builtinConfigFrom(
  draft: ServerDraft,
  builtin: BuiltinDraft,
  taken: readonly string[],
): { ok: true; config: ServerConfig } | { ok: false; errors: DraftErrors; builtinErrors: BuiltinErrors } {
  // The shared fields are checked as for any server; the command here only stands in for the
  // connection a built-in does not have, and is replaced below.
  const name = draft.name.trim() || defaultBuiltinName(builtin.server, taken);
  const shared = configFrom({ ...draft, name, kind: 'stdio', command: builtin.server, args: '', env: '', inheritEnv: '', cwd: '' }, taken);
  const folders = builtin.server === 'filesystem' ? lines(builtin.folders) : [];
  const relative = folders.find((f) => !isAbsolute(f));
  const web = builtin.server === 'web' ? webSettings(builtin) : { env: {}, settings: {}, errors: {} };
  const builtinErrors: BuiltinErrors = { ...web.errors };
  if (relative) builtinErrors.folders = { key: 'serverForm.folderNotAbsolute', params: { line: relative } };
  if (!shared.ok || Object.keys(builtinErrors).length > 0) return { ok: false, errors: shared.ok ? {} : shared.errors, builtinErrors };
  const { inheritEnv: _inheritEnv, allowPrivate: _allowPrivate, ...common } = shared.config;
  const mayReachPrivate = (builtin.server === 'fetch' || builtin.server === 'web') && builtin.allowPrivate;
  return {
    ok: true,
    config: {
      ...common,
      transport: { type: 'builtin', server: builtin.server, allowPrivate: mayReachPrivate, folders, env: web.env, settings: web.settings },
    },
  };
}
