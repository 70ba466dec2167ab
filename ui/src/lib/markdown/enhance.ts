// What a rendered block gets once it is in the DOM: KaTeX typesetting of math placeholders
// (KaTeX builds DOM nodes and sets their styles through the CSSOM, which the CSP allows, unlike
// style attributes), a toolbar with a copy button on fenced code (and a preview button on HTML,
// SVG and Mermaid), and a "load image" button in
// place of each remote image. KaTeX is loaded on demand (`assets.svelte.ts`): until it has
// arrived, a formula shows its TeX source, and the view is rebuilt once it is there.
import { artifactKind } from './artifacts';
import { markdownAssets } from './assets.svelte';

const MATH = '.math-inline[data-tex], .math-display[data-tex]';

/** Typeset math of a block being replaced, by TeX, to move into its successor. */
export type MathReuse = Map<string, HTMLElement[]>;

const mathKey = (node: HTMLElement) => `${node.classList.contains('math-display') ? 'D' : 'I'}${node.dataset.tex ?? ''}`;

/** Collects the typeset math of `block` (it is about to be replaced by a newer version). */
export function typesetMath(block: HTMLElement): MathReuse {
  const reuse: MathReuse = new Map();
  block.querySelectorAll<HTMLElement>(MATH).forEach((node) => {
    if (!node.querySelector('.katex')) return;
    const key = mathKey(node);
    reuse.set(key, [...(reuse.get(key) ?? []), node]);
  });
  return reuse;
}

/** The translated texts the added controls need. */
export type EnhanceLabels = { copy: string; preview: string; loadImage: string; remoteImage: (host: string) => string };

/** Runs `render` with `setAttribute('style', …)` turned into the same declarations set through
 * the CSSOM. KaTeX writes a few styles as attributes (stretchy arrows, tall delimiters, `\\fbox`
 * borders); the window's CSP (`style-src 'self'`, no inline styles) refuses those and reports a
 * violation, while styles set through the CSSOM are allowed. Synchronous, restored at once. */
function withStyleAttributesAsCssom(render: () => void): void {
  const proto = Element.prototype;
  const original = proto.setAttribute;
  proto.setAttribute = function (this: Element, name: string, value: string) {
    if (name.toLowerCase() === 'style' && 'style' in this) {
      (this as HTMLElement).style.cssText = value;
      return;
    }
    original.call(this, name, value);
  };
  try {
    render();
  } finally {
    proto.setAttribute = original;
  }
}

/** Typesets a math placeholder, or puts the same formula typeset earlier in its place. */
function typeset(node: HTMLElement, reuse: MathReuse | undefined): void {
  const earlier = reuse?.get(mathKey(node))?.shift();
  if (earlier) {
    // Moving a node keeps the styles KaTeX set through the CSSOM (cloning would not).
    node.replaceWith(earlier);
    return;
  }
  const tex = node.dataset.tex ?? '';
  const katex = markdownAssets.katex.current;
  if (!katex) {
    markdownAssets.katex.request();
    return;
  }
  try {
    withStyleAttributesAsCssom(() => katex.render(tex, node, {
      displayMode: node.classList.contains('math-display'),
      throwOnError: false,
      trust: false,
      strict: 'ignore',
      maxExpand: 1000,
      maxSize: 50,
    }));
  } catch {
    node.textContent = tex;
  }
}

function barButton(action: string, label: string): HTMLButtonElement {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'md-copy';
  button.dataset.action = action;
  button.textContent = label;
  button.setAttribute('aria-label', label);
  return button;
}

function codeBar(pre: HTMLElement, labels: EnhanceLabels): HTMLElement {
  const bar = document.createElement('div');
  bar.className = 'md-code-bar';
  const lang = document.createElement('span');
  lang.className = 'md-code-lang';
  lang.textContent = pre.dataset.lang ?? '';
  bar.append(lang);
  const code = pre.querySelector('code')?.textContent ?? '';
  if (artifactKind(pre.dataset.lang ?? '', code)) bar.append(barButton('preview', labels.preview));
  bar.append(barButton('copy', labels.copy));
  return bar;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

function imagePlaceholder(img: HTMLImageElement, labels: EnhanceLabels): HTMLElement {
  const url = img.dataset.remoteSrc ?? '';
  const box = document.createElement('span');
  box.className = 'md-remote-image';
  const text = document.createElement('span');
  text.textContent = labels.remoteImage(hostOf(url));
  text.title = url;
  const load = document.createElement('button');
  load.type = 'button';
  load.dataset.action = 'load-image';
  load.textContent = labels.loadImage;
  load.setAttribute('aria-label', `${labels.loadImage}: ${url}`);
  box.append(text, load);
  return box;
}

/** Shows a parked remote image (the user allowed it). */
export function loadImage(img: HTMLImageElement): void {
  const url = img.dataset.remoteSrc;
  if (!url) return;
  img.src = url;
  img.removeAttribute('data-remote-src');
  if (img.nextElementSibling?.classList.contains('md-remote-image')) img.nextElementSibling.remove();
}

/**
 * Adds math, code toolbars and image placeholders to a freshly built block; `reuse` holds the
 * typeset formulas of the block it replaces, so a growing paragraph does not typeset its
 * finished formulas again on every frame.
 */
export function enhance(block: HTMLElement, labels: EnhanceLabels, allowRemoteImages: boolean, reuse?: MathReuse): void {
  block.querySelectorAll<HTMLElement>(MATH).forEach((node) => typeset(node, reuse));
  block.querySelectorAll<HTMLElement>('pre.md-code').forEach((pre) => {
    const wrap = document.createElement('div');
    wrap.className = 'md-code-wrap';
    pre.replaceWith(wrap);
    wrap.append(codeBar(pre, labels), pre);
  });
  block.querySelectorAll<HTMLImageElement>('img[data-remote-src]').forEach((img) => {
    if (allowRemoteImages) loadImage(img);
    else img.after(imagePlaceholder(img, labels));
  });
}
