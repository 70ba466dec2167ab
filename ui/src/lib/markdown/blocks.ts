// Streaming-friendly rendering: a document is lexed into its top-level blocks and each block is
// rendered and sanitized on its own, with a cache keyed by the block's source. While tokens
// arrive only the last block changes, so only it is rendered again.
import type { Tokens, TokensList } from 'marked';
import { lexBlocks, renderTokens } from './parse';
import { sanitizeHtml } from './sanitize';

/** One top-level block: its source (the cache and DOM key) and its sanitized HTML. */
export type RenderedBlock = { key: string; html: string };

export class BlockRenderer {
  #cache = new Map<string, string>();
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
    const tokens = lexBlocks(source);
    const next = new Map<string, string>();
    const blocks: RenderedBlock[] = [];
    for (const token of tokens as Tokens.Generic[]) {
      if (token.type === 'space' || token.type === 'def') continue;
      const key = token.raw;
      const html = next.get(key) ?? this.#cache.get(key) ?? this.#build(token, tokens.links);
      next.set(key, html);
      blocks.push({ key, html });
    }
    this.#cache = next;
    return blocks;
  }
}
