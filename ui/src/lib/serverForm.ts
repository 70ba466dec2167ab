// The add/edit server form's model: a flat draft of strings that the inputs edit, and its
// conversion to a `ServerConfig` (or to the errors, by field, that stop it). Arguments are one
// per line; env vars are `KEY=value` lines; headers are `Name: value` lines.
import type { Approval, JwtAlgorithm, OAuthClient, OAuthGrant, ServerConfig } from '../bindings';
import type { MessageKey } from '../i18n/index.svelte';

export type TransportKind = 'stdio' | 'http' | 'sse';

export type ServerDraft = {
  name: string;
  kind: TransportKind;
  command: string;
  args: string;
  env: string;
  /** Names of Switchboard's own environment variables the server also gets, one per line. */
  inheritEnv: string;
  cwd: string;
  url: string;
  headers: string;
  enabled: boolean;
  autoStart: boolean;
  approval: Approval;
  /** The server may reach local and private addresses (its OAuth endpoints, its Apps' origins). */
  allowPrivate: boolean;
  startupTimeoutS: string;
  callTimeoutS: string;
  /** Remote servers' OAuth client: a pre-registered id, our metadata document, the grant. */
  oauthClientId: string;
  oauthMetadataUrl: string;
  oauthGrant: OAuthGrant;
  /** Scopes for the client-credentials grant, separated by spaces. */
  oauthScopes: string;
  oauthSigning: JwtAlgorithm | '';
  /** A new client secret or PEM private key (never filled in from the engine). */
  oauthSecret: string;
};

export type DraftField = keyof ServerDraft;
export type DraftError = { key: MessageKey; params?: Record<string, string | number> };
export type DraftErrors = Partial<Record<DraftField, DraftError>>;

const MAX_NAME_CHARS = 64;
const DEFAULT_TIMEOUT_S = 60;

const lines = (text: string) => text.split('\n').map((l) => l.trim()).filter((l) => l !== '');
const pairsText = (map: Record<string, string>, sep: string) =>
  Object.entries(map).map(([k, v]) => `${k}${sep}${v}`).join('\n');

/** A draft for a new server, or for editing `config`. */
export function draftFrom(config?: ServerConfig): ServerDraft {
  const t = config?.transport;
  return {
    name: config?.name ?? '',
    kind: t?.type === 'http' || t?.type === 'sse' ? t.type : 'stdio',
    command: t?.type === 'stdio' ? t.command : '',
    args: t?.type === 'stdio' ? t.args.join('\n') : '',
    env: t?.type === 'stdio' ? pairsText(t.env, '=') : '',
    inheritEnv: (config?.inheritEnv ?? []).join('\n'),
    cwd: t?.type === 'stdio' ? (t.cwd ?? '') : '',
    url: t?.type === 'http' || t?.type === 'sse' ? t.url : '',
    headers: t?.type === 'http' || t?.type === 'sse' ? pairsText(t.headers, ': ') : '',
    enabled: config?.enabled ?? true,
    autoStart: config?.autoStart ?? true,
    approval: config?.approval ?? 'ask',
    allowPrivate: config?.allowPrivate ?? false,
    startupTimeoutS: String((config?.startupTimeoutMs ?? DEFAULT_TIMEOUT_S * 1000) / 1000),
    callTimeoutS: String((config?.callTimeoutMs ?? DEFAULT_TIMEOUT_S * 1000) / 1000),
    oauthClientId: config?.oauth?.clientId ?? '',
    oauthMetadataUrl: config?.oauth?.clientMetadataUrl ?? '',
    oauthGrant: config?.oauth?.grant ?? 'authorization_code',
    oauthScopes: (config?.oauth?.scopes ?? []).join(' '),
    oauthSigning: config?.oauth?.signingAlgorithm ?? '',
    oauthSecret: '',
  };
}

/** The draft's OAuth client settings (`undefined` when all are defaults), or the errors. */
function oauthFrom(draft: ServerDraft, errors: DraftErrors): OAuthClient | undefined {
  const clientId = draft.oauthClientId.trim();
  const machine = draft.oauthGrant === 'client_credentials';
  // A metadata document identifies a browser-flow client; the field is hidden for client credentials.
  const metadataUrl = machine ? '' : draft.oauthMetadataUrl.trim();
  if (metadataUrl) {
    let https = false;
    try {
      const url = new URL(metadataUrl);
      https = url.protocol === 'https:' && url.pathname !== '/';
    } catch {
      https = false;
    }
    if (!https) errors.oauthMetadataUrl = { key: 'serverForm.oauthMetadataUrlInvalid' };
  }
  if (machine && !clientId) errors.oauthClientId = { key: 'serverForm.oauthClientIdRequired' };
  const oauth: OAuthClient = {
    ...(clientId ? { clientId } : {}),
    ...(metadataUrl ? { clientMetadataUrl: metadataUrl } : {}),
    ...(machine ? { grant: 'client_credentials' as const } : {}),
    ...(machine && draft.oauthScopes.trim() ? { scopes: draft.oauthScopes.trim().split(/\s+/) } : {}),
    ...(machine && draft.oauthSigning ? { signingAlgorithm: draft.oauthSigning } : {}),
  };
  return Object.keys(oauth).length > 0 ? oauth : undefined;
}

type Pairs = { ok: true; map: Record<string, string> } | { ok: false; error: DraftError };

function parsePairs(text: string, sep: '=' | ':', badKey: MessageKey): Pairs {
  const map: Record<string, string> = {};
  for (const line of lines(text)) {
    const at = line.indexOf(sep);
    const key = at > 0 ? line.slice(0, at).trim() : '';
    if (!key || /\s/.test(key)) return { ok: false, error: { key: badKey, params: { line } } };
    map[key] = line.slice(at + 1).trim();
  }
  return { ok: true, map };
}

function parseSeconds(text: string): number | null {
  const value = Number(text.trim());
  return text.trim() !== '' && Number.isFinite(value) && value > 0 && value <= 3600 ? Math.round(value * 1000) : null;
}

function checkName(name: string, taken: readonly string[]): DraftError | null {
  if (!name.trim()) return { key: 'serverForm.nameRequired' };
  if ([...name].length > MAX_NAME_CHARS) return { key: 'serverForm.nameTooLong', params: { max: MAX_NAME_CHARS } };
  if (taken.includes(name.trim())) return { key: 'serverForm.nameTaken' };
  return null;
}

function checkUrl(url: string): DraftError | null {
  if (!url.trim()) return { key: 'serverForm.urlRequired' };
  try {
    const parsed = new URL(url.trim());
    return /^https?:$/.test(parsed.protocol) ? null : { key: 'serverForm.urlInvalid' };
  } catch {
    return { key: 'serverForm.urlInvalid' };
  }
}

/** The configuration the draft describes, or the errors by field. `taken`: other servers' names. */
export function configFrom(
  draft: ServerDraft,
  taken: readonly string[],
): { ok: true; config: ServerConfig } | { ok: false; errors: DraftErrors } {
  const errors: DraftErrors = {};
  const nameError = checkName(draft.name, taken);
  if (nameError) errors.name = nameError;
  const startup = parseSeconds(draft.startupTimeoutS);
  const callTimeout = parseSeconds(draft.callTimeoutS);
  if (startup === null) errors.startupTimeoutS = { key: 'serverForm.timeoutInvalid' };
  if (callTimeout === null) errors.callTimeoutS = { key: 'serverForm.timeoutInvalid' };
  let transport: ServerConfig['transport'] | null = null;
  if (draft.kind === 'stdio') {
    const env = parsePairs(draft.env, '=', 'serverForm.envInvalid');
    if (!draft.command.trim()) errors.command = { key: 'serverForm.commandRequired' };
    if (!env.ok) errors.env = env.error;
    else {
      const cwd = draft.cwd.trim();
      transport = { type: 'stdio', command: draft.command.trim(), args: lines(draft.args), env: env.map, ...(cwd ? { cwd } : {}) };
    }
  } else {
    const headers = parsePairs(draft.headers, ':', 'serverForm.headersInvalid');
    const urlError = checkUrl(draft.url);
    if (urlError) errors.url = urlError;
    if (!headers.ok) errors.headers = headers.error;
    else transport = { type: draft.kind, url: draft.url.trim(), headers: headers.map };
  }
  const oauth = draft.kind === 'stdio' ? undefined : oauthFrom(draft, errors);
  if (Object.keys(errors).length > 0 || !transport || startup === null || callTimeout === null) return { ok: false, errors };
  return {
    ok: true,
    config: {
      name: draft.name.trim(),
      transport,
      enabled: draft.enabled,
      startupTimeoutMs: startup,
      callTimeoutMs: callTimeout,
      autoStart: draft.autoStart,
      approval: draft.approval,
      ...(oauth ? { oauth } : {}),
      ...(draft.kind === 'stdio' && lines(draft.inheritEnv).length > 0 ? { inheritEnv: lines(draft.inheritEnv) } : {}),
      ...(draft.allowPrivate ? { allowPrivate: true } : {}),
    },
  };
}

/** What a stdio server inherits from Switchboard's environment besides the names it is given. */
export const INHERITED_ENV = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'] as const;

/** One line saying how a server is reached: its command line or its URL. */
export function summary(config: ServerConfig): string {
  const t = config.transport;
  if (t.type === 'stdio') return [t.command, ...t.args.map((a) => (/[\s'"]/.test(a) ? JSON.stringify(a) : a))].join(' ');
  if (t.type === 'builtin') return `built-in ${t.server}`;
  return `${t.url} (${t.type === 'http' ? 'HTTP' : 'SSE'})`;
}
