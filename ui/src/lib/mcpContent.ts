// MCP content the composer offers: the prompts (slash commands) and resources (attachments) of
// the servers a conversation may use, URI templates filled in, and a prompt's messages turned
// into composer text plus attachments. Pure helpers apart from the loaders (the servers, their
// prompts and resources, one prompt expanded, one resource read).
import * as api from '../api';
import type {
  Attachment,
  ChatSettings,
  Conversation,
  Prompt,
  PromptInfo,
  ResourceContent,
  ResourceInfo,
  ResourceTemplateInfo,
} from '../bindings';

/** Expanding one prompt of a running server, reading one of its resources. */
export { getPrompt, readResource } from '../api';

/** One named text argument asked for in a form (a prompt's argument, a template variable). */
export type ArgumentField = { name: string; description: string | null; required: boolean };

/** A prompt and the server that offers it. */
export type PromptEntry = { server: string; prompt: PromptInfo };

/** What one server offers to attach. */
export type ServerResources = { server: string; resources: ResourceInfo[]; templates: ResourceTemplateInfo[] };

/** The running servers the conversation may use (all running ones unless it names some). */
export async function enabledServers(conversation: Conversation | undefined): Promise<string[]> {
  const states = await api.serverStates();
  const chosen = ((conversation?.settings ?? {}) as ChatSettings).servers;
  return states
    .filter((s) => s.state.type === 'ready')
    .map((s) => s.name)
    .filter((name) => !chosen || chosen.includes(name))
    .sort((a, b) => a.localeCompare(b));
}

/** Every prompt of `servers`; a server that fails to list is left out. */
export async function loadPrompts(servers: string[]): Promise<PromptEntry[]> {
  const lists = await Promise.allSettled(servers.map((server) => api.serverPrompts(server)));
  return lists.flatMap((list, i) =>
    list.status === 'fulfilled' ? list.value.map((prompt) => ({ server: servers[i]!, prompt })) : [],
  );
}

/** Every resource and template of `servers`; a server that fails to list is left out. */
export async function loadResources(servers: string[]): Promise<ServerResources[]> {
  const lists = await Promise.allSettled(
    servers.map(async (server) => ({
      server,
      resources: await api.serverResources(server),
      templates: await api.serverResourceTemplates(server).catch(() => []),
    })),
  );
  return lists.flatMap((list) => (list.status === 'fulfilled' ? [list.value] : []));
}

/** The prompts matching what follows the slash: name, title or server, case-insensitive. */
export function filterPrompts(entries: PromptEntry[], query: string): PromptEntry[] {
  const q = query.trim().toLowerCase();
  if (!q) return entries;
  const score = (e: PromptEntry) => {
    const name = e.prompt.name.toLowerCase();
    if (name.startsWith(q)) return 0;
    if (name.includes(q) || (e.prompt.title ?? '').toLowerCase().includes(q)) return 1;
    return e.server.toLowerCase().includes(q) ? 2 : 3;
  };
  return entries
    .map((e) => ({ e, s: score(e) }))
    .filter(({ s }) => s < 3)
    .sort((a, b) => a.s - b.s)
    .map(({ e }) => e);
}

/** The query of a slash command being typed (`/name` alone in the box), or null. */
export function slashQuery(text: string): string | null {
  const match = /^\/(\S*)$/.exec(text);
  return match ? match[1]! : null;
}

const EXPRESSION = /\{([+#./;?&]?)([^}]+)\}/g;

/** The variable names of an RFC 6570 URI template, in order, each once. */
export function templateVariables(template: string): string[] {
  const names = [...template.matchAll(EXPRESSION)].flatMap((m) =>
    m[2]!.split(',').map((v) => v.replace(/(\*|:\d+)$/, '').trim()),
  );
  return [...new Set(names.filter(Boolean))];
}

/**
 * Expands an RFC 6570 URI template (levels 1–3: simple, `+` reserved, `#` fragment, `.`, `/`,
 * `;`, `?` and `&`); variables without a value are left out as the RFC says.
 */
export function expandTemplate(template: string, values: Record<string, string>): string {
  return template.replace(EXPRESSION, (_, op: string, list: string) => {
    const names = list.split(',').map((v) => v.replace(/(\*|:\d+)$/, '').trim());
    const defined = names.filter((n) => (values[n] ?? '') !== '');
    if (defined.length === 0) return '';
    const reserved = op === '+' || op === '#';
    const enc = (v: string) => (reserved ? encodeURI(v) : encodeURIComponent(v));
    const named = op === ';' || op === '?' || op === '&';
    const parts = defined.map((n) => (named ? `${n}=${enc(values[n]!)}` : enc(values[n]!)));
    const first = { '': '', '+': '', '#': '#', '.': '.', '/': '/', ';': ';', '?': '?', '&': '&' }[op] ?? '';
    const sep = { '': ',', '+': ',', '#': ',', '.': '.', '/': '/', ';': ';', '?': '&', '&': '&' }[op] ?? ',';
    return first + parts.join(sep);
  });
}

/** Attachments from a read resource's contents (one per content item). */
export function toAttachments(server: string, name: string, contents: ResourceContent[]): Attachment[] {
  return contents.map((c, i) => ({
    server,
    uri: c.uri,
    name: contents.length > 1 ? `${name} (${i + 1})` : name,
    mimeType: c.mime,
    body: c.body,
  }));
}

/** The last path segment of a URI, for naming a resource read from a template. */
export function uriName(uri: string): string {
  const trimmed = uri.replace(/[?#].*$/, '').replace(/\/+$/, '');
  return decodeURIComponent(trimmed.slice(trimmed.lastIndexOf('/') + 1)) || uri;
}

/**
 * A prompt's messages for the composer: text parts become the text (an assistant's text is
 * quoted as such), embedded resources and images become attachments, resource links are named.
 */
export function promptToComposer(server: string, promptName: string, prompt: Prompt): { text: string; attachments: Attachment[] } {
  const texts: string[] = [];
  const attachments: Attachment[] = [];
  prompt.messages.forEach((message, i) => {
    const c = message.content;
    if (c.type === 'text') texts.push(message.role === 'assistant' ? `Assistant: ${c.text}` : c.text);
    else if (c.type === 'resource') attachments.push(...toAttachments(server, uriName(c.uri), [c]));
    else if (c.type === 'resource_link') texts.push(`${c.title ?? c.name}: ${c.uri}`);
    else if (c.type === 'image') {
      const uri = `prompt://${server}/${promptName}/${i + 1}`;
      attachments.push({ server, uri, name: `${promptName} image ${i + 1}`, mimeType: c.mime, body: { kind: 'blob', value: c.data } });
    }
  });
  return { text: texts.join('\n\n'), attachments };
}

/** A short size label of an attachment's contents, e.g. `1.2 KB`. */
export function attachmentSize(a: Attachment): string {
  const bytes = a.body.kind === 'text' ? new TextEncoder().encode(a.body.value).length : Math.floor((a.body.value.length * 3) / 4);
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
