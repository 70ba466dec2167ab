// What a rendered block gets once it is in the DOM: KaTeX typesetting of math placeholders
// (KaTeX builds DOM nodes and sets their styles through the CSSOM, which the CSP allows, unlike
// style attributes), a toolbar with a copy button on fenced code, and a "load image" button in
// place of each remote image.
import katex from 'katex';

/** The translated texts the added controls need. */
export type EnhanceLabels = { copy: string; loadImage: string; remoteImage: (host: string) => string };

function typeset(node: HTMLElement): void {
  const tex = node.dataset.tex ?? '';
  try {
    katex.render(tex, node, {
      displayMode: node.classList.contains('math-display'),
      throwOnError: false,
      trust: false,
      strict: 'ignore',
      maxExpand: 1000,
      maxSize: 50,
    });
  } catch {
    node.textContent = tex;
  }
}

function codeBar(pre: HTMLElement, labels: EnhanceLabels): HTMLElement {
  const bar = document.createElement('div');
  bar.className = 'md-code-bar';
  const lang = document.createElement('span');
  lang.className = 'md-code-lang';
  lang.textContent = pre.dataset.lang ?? '';
  const copy = document.createElement('button');
  copy.type = 'button';
  copy.className = 'md-copy';
  copy.dataset.action = 'copy';
  copy.textContent = labels.copy;
  copy.setAttribute('aria-label', labels.copy);
  bar.append(lang, copy);
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

/** Adds math, code toolbars and image placeholders to a freshly inserted block. */
export function enhance(block: HTMLElement, labels: EnhanceLabels, allowRemoteImages: boolean): void {
  block.querySelectorAll<HTMLElement>('.math-inline[data-tex], .math-display[data-tex]').forEach(typeset);
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
