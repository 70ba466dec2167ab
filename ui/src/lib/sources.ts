// The sources an answer cites: results a tool returned as structured content in the shape the
// built-in `web` server's `search` uses (`{results: [{n, title, url, snippet}]}`, any server
// may use it), collected from the tool messages of the same turn (since the user's last
// message; a later search's number wins over an earlier one's), and kept for an answer when
// its text cites their number as [n]. Only http(s) URLs are kept, and files named by `path`
// with a `file:` URL (a knowledge base's passages; the engine opens only files a knowledge
// base indexed): the model and the tools are untrusted, and a source opens outside the app.
import type { JsonValue, Message } from '../bindings';

export type Source = {
  /** The number the answer cites. */
  n: number;
  title: string;
  url: string;
  /** The host shown on the chip (a file's name for a file). */
  host: string;
  /** A knowledge base's file: opened by path, not as a URL. */
  path?: string;
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The http(s) URL in `text` and its host, or null. */
function webUrl(text: unknown): { url: string; host: string } | null {
  if (typeof text !== 'string') return null;
  try {
    const url = new URL(text);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return { url: url.href, host: url.host };
  } catch {
    return null;
  }
}

/** A knowledge base's file (`file:` URL and an absolute `path`), shown by its name. */
function knowledgeFile(r: Record<string, unknown>): { url: string; host: string; path: string } | null {
  const absolute = (p: string) => p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\\\');
  if (typeof r.url !== 'string' || !r.url.startsWith('file:') || typeof r.path !== 'string' || !absolute(r.path)) return null;
  const name = r.path.split(/[\\/]/).pop() || r.path;
  return { url: r.url, host: name, path: r.path };
}

/** The numbered results in one tool result's content (`{content, structured, is_error}`). */
export function resultsOf(content: JsonValue): Source[] {
  if (!isObject(content) || content.is_error === true) return [];
  const structured = content.structured;
  if (!isObject(structured) || !Array.isArray(structured.results)) return [];
  return structured.results.flatMap((r): Source[] => {
    if (!isObject(r) || typeof r.n !== 'number' || !Number.isInteger(r.n)) return [];
    const web = webUrl(r.url) ?? knowledgeFile(r);
    if (!web) return [];
    const title = typeof r.title === 'string' && r.title.trim() !== '' ? r.title.trim() : web.host;
    return [{ n: r.n, title, ...web }];
  });
}

/** The numbers `text` cites as [n]. */
export function citedNumbers(text: string): Set<number> {
  return new Set([...text.matchAll(/\[(\d{1,3})\]/g)].map((m) => Number(m[1])));
}

/** For each assistant message that cites results of its turn's tools: those results, by number. */
export function sourcesByMessage(messages: readonly Message[]): Map<string, Source[]> {
  const out = new Map<string, Source[]>();
  let found = new Map<number, Source>();
  for (const message of messages) {
    if (message.role === 'user') {
      found = new Map();
      continue;
    }
    for (const part of message.content) {
      if (part.type === 'tool_result') for (const s of resultsOf(part.content)) found.set(s.n, s);
    }
    if (message.role !== 'assistant' || found.size === 0) continue;
    const text = message.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
    const cited = [...citedNumbers(text)].sort((a, b) => a - b).flatMap((n) => found.get(n) ?? []);
    if (cited.length > 0) out.set(message.id, cited);
  }
  return out;
}
