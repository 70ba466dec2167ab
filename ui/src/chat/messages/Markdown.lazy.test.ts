// The Markdown pipeline, highlight.js and KaTeX arrive on demand (the test setup loads nothing
// for `*.lazy.test.ts` files): what is shown before each part arrives, and after.
import { render, screen, waitFor } from '@testing-library/svelte';
import { describe, expect, test } from 'vitest';
import { markdownAssets, Part } from '../../lib/markdown/assets.svelte';
import { dangerousBits } from '../../test/xss-corpus';
import Markdown from './Markdown.svelte';

const unset = (root: HTMLElement) => [...root.querySelectorAll('.math-inline, .math-display')].filter((m) => !m.querySelector('.katex'));

describe('Markdown before its parts have loaded', () => {
  test('a message is plain text until the pipeline arrives, then sanitized Markdown', async () => {
    const source = '**bold** and <img src=x onerror="window.pwned=1"> [link](javascript:alert(1))';
    expect(markdownAssets.pipeline.current).toBeNull();
    render(Markdown, { source });
    const root = screen.getByTestId('markdown');

    expect(root.textContent).toBe(source);
    expect(root.children).toHaveLength(0);

    await waitFor(() => expect(root.querySelector('strong')?.textContent).toBe('bold'));
    expect(root).not.toHaveClass('plain');
    expect(dangerousBits(root)).toEqual([]);
  });

  test('code is shown escaped until highlight.js arrives, then highlighted', async () => {
    await markdownAssets.pipeline.load();
    expect(markdownAssets.highlighter.current).toBeNull();
    render(Markdown, { source: '```rust\nfn main() { let s = "<b>"; }\n```' });
    const code = () => screen.getByTestId('markdown').querySelector('pre.md-code code')!;

    expect(code().textContent).toBe('fn main() { let s = "<b>"; }');
    expect(code().querySelector('span')).toBeNull();

    await waitFor(() => expect(code().querySelector('.hljs-keyword')?.textContent).toBe('fn'));
    expect(code()).toHaveClass('language-rust');
    expect(code().textContent).toBe('fn main() { let s = "<b>"; }');
    expect(screen.getByTestId('markdown').querySelector('b')).toBeNull();
  });

  test('a language outside the first set is highlighted once the rest of the languages arrive', async () => {
    const hljs = await markdownAssets.highlighter.load();
    expect(hljs.getLanguage('go')).toBeUndefined();
    // A fence whose name is still streaming in ("```ru" of "```rust") fetches nothing more.
    const { rerender } = render(Markdown, { source: 'Code:\n\n```ru', streaming: true });
    await new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));
    expect(markdownAssets.moreLanguages.loading || markdownAssets.moreLanguages.current !== null).toBe(false);

    await rerender({ source: '```go\nfunc main() {}\n```\n\n```nosuchlang\nx\n```', streaming: false });
    expect(markdownAssets.moreLanguages.loading).toBe(true);
    const root = screen.getByTestId('markdown');

    await waitFor(() => expect(root.querySelector('code.language-go .hljs-keyword')?.textContent).toBe('func'));
    expect(root.querySelectorAll('code')[1]).not.toHaveClass('language-nosuchlang');
  });

  test('math shows its TeX until KaTeX arrives, then every formula is typeset, also while streaming', async () => {
    expect(markdownAssets.katex.current).toBeNull();
    const { rerender } = render(Markdown, { source: 'Euler: $e^{i\\pi}+1=0$', streaming: true });
    await new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));
    const root = screen.getByTestId('markdown');
    expect(root.querySelector('.math-inline')?.textContent).toBe('e^{i\\pi}+1=0');

    await rerender({ source: 'Euler: $e^{i\\pi}+1=0$\n\n$$\\frac{a}{b}$$', streaming: false });
    await waitFor(() => expect(root.querySelectorAll('.katex')).toHaveLength(2));
    expect(unset(root)).toEqual([]);
  });
});

describe('a loadable part', () => {
  test('loads once, tells when it arrived, and is tried again after a failure', async () => {
    let calls = 0;
    let arrivals = 0;
    const part = new Part(
      () => (++calls === 1 ? Promise.reject(new Error('offline')) : Promise.resolve('ready')),
      () => (arrivals += 1),
    );

    await expect(part.load()).rejects.toThrow('offline');
    expect(part.current).toBeNull();
    expect(await Promise.all([part.load(), part.load()])).toEqual(['ready', 'ready']);
    expect([part.current, calls, arrivals]).toEqual(['ready', 2, 1]);
  });
});
