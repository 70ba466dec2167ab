import { describe, expect, test } from 'vitest';
import { dangerousBits, XSS_CORPUS } from '../../test/xss-corpus';
import { BlockRenderer, lexIncrementally } from './blocks';
import { lexBlocks } from './parse';
import { markdownToHtml } from './parse';
import { sanitizeHtml } from './sanitize';

function fragment(html: string): HTMLElement {
  const div = document.createElement('div');
  div.innerHTML = html;
  return div;
}

describe('the sanitizer', () => {
  test('the corpus holds over a hundred payloads with unique ids', () => {
    expect(XSS_CORPUS.length).toBeGreaterThan(100);
    expect(new Set(XSS_CORPUS.map((p) => p.id)).size).toBe(XSS_CORPUS.length);
  });

  test.each(XSS_CORPUS)('$id leaves nothing dangerous as raw HTML', ({ payload }) => {
    expect(dangerousBits(fragment(sanitizeHtml(payload)))).toEqual([]);
  });

  test.each(XSS_CORPUS)('$id leaves nothing dangerous as Markdown', ({ payload }) => {
    expect(dangerousBits(fragment(sanitizeHtml(markdownToHtml(payload))))).toEqual([]);
  });

  test('the corpus check itself catches what it looks for', () => {
    const bad = fragment('<a href="javascript:x" onclick="y">a</a><script></script><p style="color:red">');
    expect(dangerousBits(bad)).toEqual(['<script>', 'a[href=javascript:x]', 'a[href=javascript:x]', 'a[onclick]', 'p[style]']);
  });

  test('safe links keep their href and get rel, unsafe ones lose it', () => {
    const html = sanitizeHtml('<a href="https://ok.example/x" target="_blank">ok</a><a href="javascript:x()">bad</a>');
    expect(html).toBe(
      '<a href="https://ok.example/x" rel="noopener noreferrer nofollow">ok</a><a rel="noopener noreferrer nofollow">bad</a>',
    );
  });

  test('remote images are parked in data-remote-src, inline images stay', () => {
    const html = sanitizeHtml(
      '<img src="https://img.example/a.png" alt="a"><img src="data:image/png;base64,AAAA" alt="b"><img src="/local.png" data-remote-src="https://sneaky.example">',
    );
    expect(html).toBe(
      '<img alt="a" data-remote-src="https://img.example/a.png"><img src="data:image/png;base64,AAAA" alt="b"><img>',
    );
  });

  test('only our own class names survive', () => {
    expect(sanitizeHtml('<span class="hljs-keyword toast md-code btn class_">x</span>')).toBe(
      '<span class="hljs-keyword md-code class_">x</span>',
    );
  });
});

describe('Markdown', () => {
  test('renders a GFM table', () => {
    const el = fragment(sanitizeHtml(markdownToHtml('| a | b |\n|:--|--:|\n| 1 | 2 |')));
    expect([...el.querySelectorAll('th')].map((th) => th.textContent)).toEqual(['a', 'b']);
    expect([...el.querySelectorAll('td')].map((td) => td.textContent)).toEqual(['1', '2']);
    expect(el.querySelector('td')).toHaveAttribute('align', 'left');
  });

  test('renders task lists as ARIA checkboxes, not form inputs', () => {
    const el = fragment(sanitizeHtml(markdownToHtml('- [x] done\n- [ ] todo')));
    const boxes = [...el.querySelectorAll('[role="checkbox"]')];
    expect(boxes.map((b) => b.getAttribute('aria-checked'))).toEqual(['true', 'false']);
    expect(el.querySelector('input')).toBeNull();
  });

  test('highlights fenced code with classes only', () => {
    const el = fragment(sanitizeHtml(markdownToHtml('```rust\nfn main() { let x = 1; }\n```')));
    const code = el.querySelector('pre.md-code code')!;
    expect(code).toHaveClass('hljs', 'language-rust');
    expect(code.querySelector('.hljs-keyword')?.textContent).toBe('fn');
    expect(el.querySelector('[style]')).toBeNull();
    expect(code.textContent).toBe('fn main() { let x = 1; }');
  });

  test('code in an unknown language is escaped, not highlighted', () => {
    const el = fragment(sanitizeHtml(markdownToHtml('```nosuchlang\n<b>x</b>\n```')));
    expect(el.querySelector('code')?.textContent).toBe('<b>x</b>');
    expect(el.querySelector('b')).toBeNull();
  });

  test('display math inside a sentence keeps the paragraph whole, inline math after it too', () => {
    const el = fragment(sanitizeHtml(markdownToHtml('Euler: $$e^{i\\pi}+1=0$$ and the fraction $\\frac{a+b}{c^2}$ inline')));
    const paragraphs = el.querySelectorAll('p');
    expect(paragraphs).toHaveLength(1);
    expect(paragraphs[0]?.textContent).toMatch(/^Euler:\s.*inline$/s);
    expect(paragraphs[0]?.querySelector('span.math-display')?.getAttribute('data-tex')).toBe('e^{i\\pi}+1=0');
    expect(paragraphs[0]?.querySelector('span.math-inline')?.getAttribute('data-tex')).toBe('\\frac{a+b}{c^2}');
  });

  test('an unfinished code fence renders as code up to the end', () => {
    const el = fragment(sanitizeHtml(markdownToHtml('Here:\n\n```python\ndef f():\n    return 1')));
    expect(el.querySelector('pre code')?.textContent).toBe('def f():\n    return 1');
  });

  test('marks inline and display math for KaTeX, leaving prices alone', () => {
    const el = fragment(sanitizeHtml(markdownToHtml('It costs $5 and $10. Area $\\pi r^2$ and\n\n$$\n\\int_0^1 x\\,dx\n$$\n\nalso \\(a+b\\).')));
    expect([...el.querySelectorAll('.math-inline')].map((m) => m.getAttribute('data-tex'))).toEqual(['\\pi r^2', 'a+b']);
    expect(el.querySelector('.math-display')?.getAttribute('data-tex')).toBe('\\int_0^1 x\\,dx');
    expect(el.textContent).toContain('It costs $5 and $10.');
  });
});

describe('the block renderer', () => {
  test('renders only the changed trailing block when text is appended', () => {
    const renderer = new BlockRenderer();
    const first = renderer.render('# Title\n\nSome text');
    const second = renderer.render('# Title\n\nSome text that grows');
    expect(first.map((b) => b.key)).toEqual(['# Title', 'Some text']);
    expect(second[0]).toEqual(first[0]);
    expect(renderer.built).toBe(3);
    expect(second[1]!.html).toBe('<p>Some text that grows</p>\n');
  });

  test('reference links resolve across blocks', () => {
    const blocks = new BlockRenderer().render('See [docs][d].\n\n[d]: https://docs.example');
    expect(blocks.map((b) => b.html)).toEqual([
      '<p>See <a href="https://docs.example" rel="noopener noreferrer nofollow">docs</a>.</p>\n',
    ]);
  });
});

describe('incremental lexing', () => {
  const FRAGMENTS = [
    '# Title\n\n', 'Some *text* that goes on', ' and on.\n', '\n', 'Setext heading\n===\n\n',
    '- one\n- two\n\n- three after a gap\n', '1. first\n2. second\n', '> quoted\n> more\n\n',
    '```js\nconst x = 1;\n\nconst y = 2;\n```\n', '    indented code\n', '| a | b |\n|---|---|\n| 1 | 2 |\n',
    '$$\nx^2\n$$\n', 'See [docs][d].\n\n[d]: https://docs.example\n', '<div>\nhtml block\n</div>\n',
    '---\n', '- [x] done\n- [ ] todo\n', 'line  \nbreak\n', '\n\n',
  ];

  /** A small deterministic generator, so a failure can be replayed from its seed. */
  function rng(seed: number) {
    let state = seed;
    return () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  }

  test.each(Array.from({ length: 40 }, (_, i) => i + 1))(
    'streaming random documents in random chunks gives the blocks of a full lex (seed %i)',
    (seed) => {
      const random = rng(seed);
      const doc = Array.from({ length: 12 }, () => FRAGMENTS[Math.floor(random() * FRAGMENTS.length)]).join('');
      let lexed = null;
      for (let at = 0; at < doc.length; ) {
        at = Math.min(doc.length, at + 1 + Math.floor(random() * 12));
        lexed = lexIncrementally(doc.slice(0, at), lexed);
        const full = lexBlocks(doc.slice(0, at));
        expect(lexed.tokens.map((t) => [t.type, t.raw]), `at ${at}`).toEqual(full.map((t) => [t.type, t.raw]));
      }
    },
  );

  test('an edit that is not an append lexes everything again', () => {
    const first = lexIncrementally('# A\n\npara one\n\npara two', null);
    const edited = lexIncrementally('# B\n\npara one\n\npara two', first);
    expect(edited.tokens.map((t) => t.raw)).toEqual(lexBlocks('# B\n\npara one\n\npara two').map((t) => t.raw));
  });
});
