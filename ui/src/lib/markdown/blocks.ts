// Streaming-friendly rendering: a document is lexed into its top-level blocks and each block is
// rendered and sanitized on its own, with a cache keyed by the block's source. While tokens
// arrive only the last block changes, so only it is rendered again; and when the new text only
// appends to the old, only the last two blocks are lexed again (the earlier ones cannot change:
// a block ends at a blank line or a construct boundary that appended text cannot undo).
import type { Token, Tokens, TokensList } from 'marked';
import { lexBlocks, renderTokens } from './parse';
import { sanitizeHtml } from './sanitize';

/** One top-level block: its source (the cache and DOM key) and its sanitized HTML. */
export type RenderedBlock = { key: string; html: string };

type Lexed = { source: string; tokens: Token[]; links: TokensList['links'] };

const length = (tokens: Token[]) => tokens.reduce((n, t) => n + t.raw.length, 0);

/** Lexes `source`, reusing the blocks of `previous` when `source` only appends to it. */
export function lexIncrementally(source: string, previous: Lexed | null): Lexed {
  if (previous && source.startsWith(previous.source) && previous.tokens.length > 2) {
    const kept = previous.tokens.slice(0, -2);
    const offset = length(kept);
    const tail = lexBlocks(source.slice(offset));
    if (offset + length(tail) === source.length) {
      return { source, tokens: [...kept, ...tail], links: { ...previous.links, ...tail.links } };
    }
  }
  const tokens = lexBlocks(source);
  return { source, tokens: [...tokens], links: tokens.links };
}

export class BlockRenderer {
  #cache = new Map<string, string>();
  #lexed: Lexed | null = null;
  #built = 0;

  /** How many blocks were rendered (not taken from the cache) so far. */
  get built(): number {
    return this.#built;
  }

  #build(token: Tokens.Generic, links: TokensList['links']): string {
    this.#built += 1;
    return sanitizeHtml(renderTokens([token], links));
  }

  /** Renders `source` into sanitized blocks, reusing the HTML of blocks seen last time. */
  render(source: string): RenderedBlock[] {
    this.#lexed = lexIncrementally(source, this.#lexed);
    const { tokens, links } = this.#lexed;
    const next = new Map<string, string>();
    const blocks: RenderedBlock[] = [];
    for (const token of tokens as Tokens.Generic[]) {
      if (token.type === 'space' || token.type === 'def') continue;
      const key = token.raw;
      const html = next.get(key) ?? this.#cache.get(key) ?? this.#build(token, links);
      next.set(key, html);
      blocks.push({ key, html });
    }
    this.#cache = next;
    return blocks;
  }
}
