// Files attached in the composer and what messages show of them: picked, pasted or dropped
// files made ready by the engine (an image stored once by hash with a thumbnail, a text, code
// or PDF file as its text and token count), stored images read back (cached), whether the
// conversation's model can see images, and the message actions (delete with what hangs
// under it, copy as Markdown, token use and cost with the editable price table).
import * as api from '../api';
import type { ContentPart, Message, ModelPrice, PdfPages, PreparedFile, TokenUsage } from '../bindings';
import { t } from '../i18n/index.svelte';
import type { UnlistenFn } from '@tauri-apps/api/event';
import { chooseAttachments } from './fileDialog';

/** Makes a file from the picker ready to send. */
export function attachPath(path: string): Promise<PreparedFile> {
  return api.attachFile(path);
}

/** Makes a pasted or dropped `File` ready to send. */
export async function attachBlob(file: File): Promise<PreparedFile> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  return api.attachBytes(file.name || pastedName(file.type), bytes);
}

/** A name for a pasted image that has none (`pasted.png`). */
export function pastedName(mime: string): string {
  const ext = mime.startsWith('image/') ? mime.slice(6).replace('jpeg', 'jpg') : 'txt';
  return `pasted.${ext}`;
}

/** Asks for files to attach; empty when the picker is closed. */
export function pickFiles(): Promise<string[]> {
  return chooseAttachments();
}

/** The files a paste or drop carries. */
export function filesOf(data: DataTransfer | null): File[] {
  if (!data) return [];
  const files = Array.from(data.files ?? []);
  if (files.length) return files;
  return Array.from(data.items ?? [])
    .filter((i) => i.kind === 'file')
    .map((i) => i.getAsFile())
    .filter((f): f is File => f !== null);
}

/** Who wants the paths of files dropped on the window, and the one Tauri subscription they
 * share (every `listen` costs the page an IPC message and a script evaluation, which the web
 * process never gives back: the composer comes and goes with each conversation). */
const dropListeners = new Set<(paths: string[]) => void>();
let dropSubscription: Promise<UnlistenFn> | null = null;

/** Subscribes to the window's drop events once, for every listener of `dropListeners`. */
function subscribeDrops(): Promise<UnlistenFn> {
  return (async () => {
    const { getCurrentWebview } = await import('@tauri-apps/api/webview');
    return getCurrentWebview().onDragDropEvent((event) => {
      if (event.payload.type !== 'drop' || event.payload.paths.length === 0) return;
      for (const listener of [...dropListeners]) listener(event.payload.paths);
    });
  })();
}

/** Calls `ondrop` with the paths of files dropped on the window (Tauri catches drops before the
 * page does); resolves to a function that stops listening. Outside Tauri it does nothing. */
export async function listenForDrops(ondrop: (paths: string[]) => void): Promise<() => void> {
  const listener = (paths: string[]) => ondrop(paths);
  dropListeners.add(listener);
  dropSubscription ??= subscribeDrops();
  const subscription = dropSubscription;
  try {
    await subscription;
  } catch {
    dropListeners.delete(listener);
    if (dropSubscription === subscription) dropSubscription = null;
    return () => {};
  }
  return () => {
    if (!dropListeners.delete(listener) || dropListeners.size > 0 || dropSubscription !== subscription) return;
    // The last listener left: Tauri stops sending drops to the page.
    dropSubscription = null;
    void subscription.then((unlisten) => unlisten()).catch(() => undefined);
  };
}

const urls = new Map<string, Promise<string>>();

/** A stored image as a `data:` URL (its thumbnail, or whole), read once. */
export function storedImage(hash: string, thumbnail: boolean): Promise<string> {
  const key = `${thumbnail ? 't' : 'f'}:${hash}`;
  let url = urls.get(key);
  if (!url) {
    url = api.imageUrl(hash, thumbnail);
    url.catch(() => urls.delete(key));
    urls.set(key, url);
  }
  return url;
}

/** Whether the model of `conversationId` can see images (`null`: not known, or no conversation). */
export async function imageSupport(conversationId: string | null): Promise<boolean | null> {
  if (conversationId === null) return null;
  try {
    return await api.imageSupport(conversationId);
  } catch {
    return null;
  }
}

/** The tokens the prepared files add to the message. */
export function filesTokens(files: PreparedFile[]): number {
  return files.reduce((n, f) => n + f.tokens, 0);
}

// ---- Message actions ----

/** How many messages deleting `messageId` removes. */
export function deletionSize(messageId: string): Promise<number> {
  return api.messageDeletionSize(messageId);
}

/** Deletes a message and what hangs under it. */
export function deleteMessage(messageId: string): Promise<number> {
  return api.deleteMessage(messageId);
}

/** A message as Markdown: its text, reasoning as a quote, files fenced, images and resources named. */
export function messageMarkdown(message: Message): string {
  return message.content
    .map(partMarkdown)
    .filter((s) => s !== '')
    .join('\n\n');
}

function partMarkdown(part: ContentPart): string {
  switch (part.type) {
    case 'text':
      return part.text;
    case 'file': {
      const longest = Math.max(2, ...(part.text.match(/`+/g) ?? []).map((r) => r.length));
      const fence = '`'.repeat(longest + 1);
      return `**${part.name}**\n\n${fence}${part.language}\n${part.text.replace(/\n+$/, '')}\n${fence}`;
    }
    case 'image_ref':
      return `![${part.name ?? 'image'}](${part.name ?? 'image'})`;
    case 'resource':
      return `[${part.name}](${part.uri})`;
    case 'tool_call':
      return `\`${part.server}.${part.tool}\``;
    default:
      return '';
  }
}

// ---- Prices ----

class Prices {
  table = $state<Record<string, ModelPrice>>({});
  #loaded: Promise<void> | null = null;

  /** Reads the price table once (again after `reload`). */
  load(): Promise<void> {
    this.#loaded ??= api.modelPrices().then(
      (t) => void (this.table = t),
      () => void (this.#loaded = null),
    );
    return this.#loaded;
  }

  reload(): Promise<void> {
    this.#loaded = null;
    return this.load();
  }
}

export const prices = new Prices();

/** The price of `model`: its own entry, else the longest entry its id starts with (a model id
 * may carry a date or a provider prefix: `openai/gpt-4o-2024-08-06`). */
export function priceOf(table: Record<string, ModelPrice>, model: string | null): ModelPrice | null {
  if (!model) return null;
  const id = model.toLowerCase();
  const bare = id.includes('/') ? id.slice(id.lastIndexOf('/') + 1) : id;
  if (table[id]) return table[id];
  if (table[bare]) return table[bare];
  const key = Object.keys(table)
    .filter((k) => bare.startsWith(k.toLowerCase()))
    .sort((a, b) => b.length - a.length)[0];
  return key ? table[key]! : null;
}

/** What `usage` of `model` cost in US dollars; null when the model has no price. */
export function costOf(table: Record<string, ModelPrice>, model: string | null, usage: TokenUsage | null): number | null {
  const price = priceOf(table, model);
  if (!price || !usage) return null;
  return (usage.inputTokens * price.input + usage.outputTokens * price.output) / 1_000_000;
}

/** The token use and cost of the messages shown (cost only over the priced ones). */
export function conversationUse(
  table: Record<string, ModelPrice>,
  messages: Message[],
): { input: number; output: number; cost: number | null } {
  let input = 0;
  let output = 0;
  let cost: number | null = null;
  for (const m of messages) {
    if (!m.usage) continue;
    input += m.usage.inputTokens;
    output += m.usage.outputTokens;
    const c = costOf(table, m.model, m.usage);
    if (c !== null) cost = (cost ?? 0) + c;
  }
  return { input, output, cost };
}

/** A cost in dollars as shown: more digits for small amounts. */
export function formatCost(dollars: number): string {
  if (dollars === 0) return '$0';
  if (dollars < 0.01) return `$${dollars.toFixed(4)}`;
  return `$${dollars.toFixed(2)}`;
}

/** The user's own prices (what the settings edit). */
export function loadOwnPrices(): Promise<Record<string, ModelPrice>> {
  return api.ownModelPrices();
}

/** Saves the user's own prices and reads the whole table again. */
export async function saveOwnPrices(own: Record<string, ModelPrice>): Promise<void> {
  await api.setModelPrices(own);
  await prices.reload();
}

/** A price table from the settings' JSON (empty text: none), or what is wrong with it. */
export function parsePrices(text: string): Record<string, ModelPrice> | string {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'expected an object of models';
  const out: Record<string, ModelPrice> = {};
  for (const [model, price] of Object.entries(value as Record<string, unknown>)) {
    const p = price as Partial<ModelPrice> | null;
    if (typeof p?.input !== 'number' || typeof p?.output !== 'number' || p.input < 0 || p.output < 0) {
      return `“${model}” needs "input" and "output" numbers of zero or more`;
    }
    out[model] = { input: p.input, output: p.output };
  }
  return out;
}

/** A file chip's figures: its tokens, and for a PDF how many of its pages were taken. */
export function fileMeta(tokens: number, pages: PdfPages | null = null): string {
  const count = t('upload.tokens', { count: tokens.toLocaleString() });
  if (!pages) return count;
  if (pages.extracted >= pages.total) return `${count} · ${t('upload.pagesAll', { total: pages.total })}`;
  return `${count} · ${t('upload.pages', { extracted: pages.extracted, total: pages.total })}`;
}
