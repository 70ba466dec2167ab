// Markdown → HTML (not yet sanitized): marked with GFM (tables, task lists, strikethrough),
// math spans for KaTeX (`$…$`, `$$…$$`, `\(…\)`, `\[…\]`), class-based highlight.js for fenced
// code, and task-list boxes as ARIA spans instead of form inputs. Math is emitted as
// `<span class="math-inline" data-tex>` placeholders holding the source; `enhance.ts` typesets
// them after sanitizing, so KaTeX's output never passes through string HTML. highlight.js is
// loaded on demand (`assets.svelte.ts`): until it has arrived, code is rendered escaped.
import { markdownAssets } from './assets.svelte';
import { Marked, type TokenizerAndRendererExtension, type Tokens, type TokensList } from 'marked';

type MathToken = Tokens.Generic & { text: string; display: boolean };

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** A math placeholder. Display math inside a sentence (`Euler: $$e^{i\\pi}+1=0$$ and …`) is a
 * `span` shown as a block, so the paragraph around it stays one paragraph (a `div` inside a `p`
 * would make the HTML parser close the paragraph there). */
function mathHtml(tex: string, display: boolean, inParagraph = false): string {
  const tag = display && !inParagraph ? 'div' : 'span';
  const kind = display ? 'math-display' : 'math-inline';
  return `<${tag} class="${kind}" data-tex="${escapeHtml(tex)}">${escapeHtml(tex)}</${tag}>`;
}

// `$$…$$` on its own lines (or `\[…\]`) as a block.
const BLOCK_MATH = /^(?:\$\$([\s\S]+?)\$\$|\\\[([\s\S]+?)\\\])[ \t]*(?:\n|$)/;
// `$…$` needs a non-space after the opening and before the closing dollar, and no digit after the
// closing one, so "$5 and $10" stays text.
const INLINE_MATH =
  /^(?:\$\$([^$]+?)\$\$|\$(?![\s$])((?:\\.|[^\\$\n])*?[^\\\s$])\$(?!\d)|\\\(([\s\S]+?)\\\))/;

const blockMath: TokenizerAndRendererExtension = {
  name: 'mathBlock',
  level: 'block',
  start: (src) => src.match(/\$\$|\\\[/)?.index,
  tokenizer(src) {
    const match = BLOCK_MATH.exec(src);
    if (!match) return undefined;
    return { type: 'mathBlock', raw: match[0], text: (match[1] ?? match[2] ?? '').trim(), display: true };
  },
  renderer: (token) => mathHtml((token as MathToken).text, true) + '\n',
};

const inlineMath: TokenizerAndRendererExtension = {
  name: 'mathInline',
  level: 'inline',
  start: (src) => src.match(/\$|\\\(/)?.index,
  tokenizer(src) {
    const match = INLINE_MATH.exec(src);
    if (!match) return undefined;
    const display = match[1] !== undefined;
    const text = (match[1] ?? match[2] ?? match[3] ?? '').trim();
    return { type: 'mathInline', raw: match[0], text, display };
  },
  renderer: (token) => mathHtml((token as MathToken).text, (token as MathToken).display, true),
};

function codeLanguage(info: string | undefined): string {
  return (info ?? '').trim().split(/\s+/)[0]?.toLowerCase() ?? '';
}

/** highlight.js's HTML for `text`, or null while highlight.js or the language is not loaded
 * (asking for them) or when the language is unknown. `named` says the fence's info line is
 * complete: while it streams in ("```ru"), a partial name must not fetch the other languages. */
function highlighted(text: string, language: string, named: boolean): string | null {
  if (language === '') return null;
  const hljs = markdownAssets.highlighter.current;
  if (!hljs) {
    markdownAssets.highlighter.request();
    return null;
  }
  if (hljs.getLanguage(language)) return hljs.highlight(text, { language, ignoreIllegals: true }).value;
  if (named && !markdownAssets.moreLanguages.current) markdownAssets.moreLanguages.request();
  return null;
}

function renderCode({ text, lang, raw }: Tokens.Code): string {
  const language = codeLanguage(lang);
  const html = highlighted(text, language, raw.includes('\n'));
  const langClass = html !== null ? ` language-${language}` : '';
  return `<pre class="md-code" data-lang="${escapeHtml(language)}"><code class="hljs${langClass}">${html ?? escapeHtml(text)}</code></pre>\n`;
}

function renderCheckbox({ checked }: Tokens.Checkbox): string {
  const state = checked ? 'task-checked' : 'task-unchecked';
  return `<span class="task-box ${state}" role="checkbox" aria-checked="${checked}" aria-disabled="true"></span> `;
}

const marked = new Marked({
  gfm: true,
  breaks: false,
  extensions: [blockMath, inlineMath],
  renderer: { code: renderCode, checkbox: renderCheckbox },
});

/** Splits a document into its top-level blocks (with the shared link definitions). */
export function lexBlocks(source: string): TokensList {
  return marked.lexer(source);
}

/** Renders some top-level tokens of a document lexed by `lexBlocks` to (unsanitized) HTML. */
export function renderTokens(tokens: Tokens.Generic[], links: TokensList['links']): string {
  const list = Object.assign([...tokens], { links }) as unknown as TokensList;
  return marked.parser(list);
}

/** Renders a whole document to (unsanitized) HTML. */
export function markdownToHtml(source: string): string {
  return marked.parse(source, { async: false });
}
