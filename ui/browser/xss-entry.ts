// Browser entry of the XSS check (see xss-chromium.mjs): renders every corpus payload through
// the real Markdown pipeline, wires the real click handler, then pokes every element. The corpus
// is rendered twice: before highlight.js and KaTeX have loaded (code escaped, math as TeX) and
// after (highlighted, typeset), as the app does on demand.
import { markdownAssets } from '../src/lib/markdown/assets.svelte';
import { dangerousBits, XSS_CORPUS } from '../src/test/xss-corpus';
import { handleClick, MarkdownView, type ViewOptions } from '../src/lib/markdown/view';

type Outcome = { rendered: number; dangerous: string[]; opened: string[] };

async function run(): Promise<Outcome> {
  const opened: string[] = [];
  const options: ViewOptions = {
    labels: { copy: 'Copy', loadImage: 'Load image', remoteImage: (host) => host },
    allowRemoteImages: false,
    openLink: (url) => opened.push(url),
  };
  const dangerous: string[] = [];
  const renderAll = (pass: string) => {
    for (const { id, payload } of XSS_CORPUS) {
      const root = document.createElement('div');
      root.addEventListener('click', (event) => handleClick(event, options));
      document.body.append(root);
      new MarkdownView().update(root, payload, options);
      dangerous.push(...dangerousBits(root).map((bit) => `${id} (${pass}): ${bit}`));
    }
  };
  renderAll('before highlight.js and KaTeX');
  await markdownAssets.loadAll();
  renderAll('with highlight.js and KaTeX');
  for (const el of Array.from(document.body.querySelectorAll('*'))) {
    el.dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
    if (el instanceof HTMLElement) el.focus();
    // A dispatched click activates links like a real one (it would navigate if not prevented).
    if (!(el instanceof HTMLButtonElement)) el.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true }));
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  return { rendered: 2 * XSS_CORPUS.length, dangerous, opened };
}

(window as unknown as { runXss: typeof run }).runXss = run;
