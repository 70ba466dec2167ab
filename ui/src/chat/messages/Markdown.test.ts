import { cleanup, render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, test, vi } from 'vitest';
import { setLang } from '../../i18n/index.svelte';
import { artifacts } from '../../lib/artifacts.svelte';
import { dangerousBits, XSS_CORPUS } from '../../test/xss-corpus';
import { resetAppState } from '../../test/reset';
import Markdown from './Markdown.svelte';

beforeEach(() => resetAppState());

const nextFrame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));

describe('Markdown', () => {
  test('the whole corpus, rendered together, leaves nothing dangerous in the DOM', () => {
    const source = XSS_CORPUS.map((p) => p.payload).join('\n\n');
    render(Markdown, { source });
    expect(dangerousBits(screen.getByTestId('markdown'))).toEqual([]);
  });

  test('links open through openLink and never navigate the webview', async () => {
    const openLink = vi.fn();
    const user = userEvent.setup();
    render(Markdown, { source: '[docs](https://docs.example/a) and [app](#/settings) and [bad](javascript:alert(1))', openLink });
    const before = location.href;

    await user.click(screen.getByText('docs'));
    await user.click(screen.getByText('app'));
    await user.click(screen.getByText('bad'));

    expect(openLink.mock.calls).toEqual([['https://docs.example/a']]);
    expect(location.href).toBe(before);
  });

  test('the copy button copies the code of its block', async () => {
    const user = userEvent.setup();
    const writeText = vi.spyOn(navigator.clipboard, 'writeText');
    render(Markdown, { source: '```js\nconst a = 1;\n```' });

    await user.click(screen.getByRole('button', { name: 'Copy' }));

    expect(writeText).toHaveBeenCalledWith('const a = 1;');
    expect(await screen.findByText('Copied')).toBeInTheDocument();
  });

  test('HTML, SVG and Mermaid blocks get a Preview that opens them as an artifact; other code does not', async () => {
    const user = userEvent.setup();
    const source = [
      '```html\n<p>Hello</p>\n```',
      '```svg\n<svg viewBox="0 0 1 1"></svg>\n```',
      '```mermaid\ngraph TD; A-->B\n```',
      '```xml\n<svg></svg>\n```',
      '```xml\n<note/>\n```',
      '```js\nalert(1)\n```',
    ].join('\n\n');
    render(Markdown, { source });
    const previews = screen.getAllByRole('button', { name: 'Preview' });
    expect(previews).toHaveLength(4);
    expect(screen.getAllByRole('button', { name: 'Copy' })).toHaveLength(6);

    await user.click(previews[2]!);
    expect(artifacts.current).toEqual({ kind: 'mermaid', code: 'graph TD; A-->B' });
    await user.click(previews[3]!);
    expect(artifacts.current).toEqual({ kind: 'svg', code: '<svg></svg>' });
  });

  test('remote images wait for the user, then load', async () => {
    const user = userEvent.setup();
    render(Markdown, { source: '![chart](https://img.example/chart.png)' });
    const img = screen.getByRole('img', { hidden: true });
    expect(img).not.toHaveAttribute('src');
    expect(screen.getByText('Remote image from img.example not loaded')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: /^Load image/ }));

    expect(img).toHaveAttribute('src', 'https://img.example/chart.png');
    expect(screen.queryByText(/Remote image/)).toBeNull();
  });

  test('remote images load at once when allowed, also when allowed later', async () => {
    render(Markdown, { source: '![chart](https://img.example/chart.png)', allowRemoteImages: true });
    expect(screen.getByRole('img')).toHaveAttribute('src', 'https://img.example/chart.png');
    cleanup();

    const { rerender } = render(Markdown, { source: '![chart](https://img.example/chart.png)' });
    expect(screen.getByRole('img', { hidden: true })).not.toHaveAttribute('src');
    await rerender({ source: '![chart](https://img.example/chart.png)', allowRemoteImages: true });
    expect(screen.getByRole('img')).toHaveAttribute('src', 'https://img.example/chart.png');
  });

  test('typesets math with KaTeX', () => {
    render(Markdown, { source: 'Euler: $e^{i\\pi}+1=0$\n\n$$\\frac{a}{b}$$' });
    const root = screen.getByTestId('markdown');
    expect(root.querySelector('.math-inline .katex')).not.toBeNull();
    expect(root.querySelector('.math-display .katex-display')).not.toBeNull();
    expect(root.querySelector('.math-inline annotation')?.textContent).toBe('e^{i\\pi}+1=0');
  });

  test('while streaming, updates wait for the next frame and keep finished blocks', async () => {
    const { rerender } = render(Markdown, { source: 'First paragraph.', streaming: true });
    await nextFrame();
    const root = screen.getByTestId('markdown');
    const first = root.querySelector('p');
    expect(first).toHaveTextContent('First paragraph.');

    await rerender({ source: 'First paragraph.\n\nSecond', streaming: true });
    await rerender({ source: 'First paragraph.\n\nSecond one\n\n```py\nprint(1', streaming: true });
    expect(root.querySelectorAll('p')).toHaveLength(1);

    await nextFrame();
    expect(root.querySelector('p')).toBe(first);
    expect(root.querySelectorAll('p')[1]).toHaveTextContent('Second one');
    expect(root.querySelector('pre code')).toHaveTextContent('print(1');

    await rerender({ source: 'First paragraph.\n\nDone.', streaming: false });
    expect(root.querySelectorAll('p')[1]).toHaveTextContent('Done.');
    expect(root.querySelector('pre')).toBeNull();
  });

  test('while a paragraph grows, its finished formulas are moved, not typeset again', async () => {
    const { rerender } = render(Markdown, { source: 'One $x^2$ and', streaming: true });
    await nextFrame();
    const root = screen.getByTestId('markdown');
    const first = root.querySelector('.math-inline');
    expect(first?.querySelector('.katex')).not.toBeNull();

    await rerender({ source: 'One $x^2$ and $y^2$ and $x^2$', streaming: true });
    await nextFrame();
    const formulas = [...root.querySelectorAll('.math-inline')];
    expect(formulas.map((f) => f.getAttribute('data-tex'))).toEqual(['x^2', 'y^2', 'x^2']);
    expect(formulas[0]).toBe(first);
    expect(formulas.every((f) => f.querySelector('.katex'))).toBe(true);
  });

  test('controls follow the language', async () => {
    render(Markdown, { source: '```\nx\n```' });
    expect(screen.getByRole('button', { name: 'Copy' })).toBeInTheDocument();
    setLang('zh-CN');
    expect(await screen.findByRole('button', { name: '复制' })).toBeInTheDocument();
  });
});
