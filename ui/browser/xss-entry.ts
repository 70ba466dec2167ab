// Browser entry of the XSS check (see xss-chromium.mjs): renders every corpus payload through
// the real Markdown pipeline, wires the real click handler, then pokes every element.
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
  for (const { id, payload } of XSS_CORPUS) {
    const root = document.createElement('div');
    root.addEventListener('click', (event) => handleClick(event, options));
    document.body.append(root);
    new MarkdownView().update(root, payload, options);
    dangerous.push(...dangerousBits(root).map((bit) => `${id}: ${bit}`));
  }
  for (const el of Array.from(document.body.querySelectorAll('*'))) {
    el.dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
    if (el instanceof HTMLElement) el.focus();
    // A dispatched click activates links like a real one (it would navigate if not prevented).
    if (!(el instanceof HTMLButtonElement)) el.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true }));
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  return { rendered: XSS_CORPUS.length, dangerous, opened };
}

(window as unknown as { runXss: typeof run }).runXss = run;
