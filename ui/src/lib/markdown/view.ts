// Keeps a container's children in step with a Markdown document: one element per top-level
// block, replaced only when that block's source changed. Clicks are handled here too: links
// never navigate the webview (they go to `openLink`), copy buttons copy their code, preview
// buttons open their block as an artifact (`onPreview`), "load image"
// buttons show the image they stand for.
import { BlockRenderer } from './blocks';
import { artifactKind, type ArtifactKind } from './artifacts';
import { enhance, loadImage, typesetMath, type EnhanceLabels } from './enhance';
import { SAFE_LINK } from './sanitize';

export type ViewOptions = {
  labels: EnhanceLabels;
  allowRemoteImages: boolean;
  /** Opens a link outside the app (the system browser). */
  openLink: (url: string) => void;
  /** Called after a copy with the code copied (for "copied" feedback). */
  onCopied?: (button: HTMLButtonElement) => void;
  /** Shows a previewable block (HTML, SVG, Mermaid) as an artifact. */
  onPreview?: (kind: ArtifactKind, code: string) => void;
};

type Shown = { key: string; el: HTMLElement };

export class MarkdownView {
  #renderer = new BlockRenderer();
  #shown: Shown[] = [];

  /** Brings `root` up to date with `source`; returns how many blocks were (re)built. */
  update(root: HTMLElement, source: string, options: ViewOptions): number {
    const blocks = this.#renderer.render(source);
    let built = 0;
    blocks.forEach((block, i) => {
      if (this.#shown[i]?.key === block.key) return;
      const old = this.#shown[i];
      const el = document.createElement('div');
      el.className = 'md-block';
      el.innerHTML = block.html;
      enhance(el, options.labels, options.allowRemoteImages, old ? typesetMath(old.el) : undefined);
      if (old) old.el.replaceWith(el);
      else root.append(el);
      this.#shown[i] = { key: block.key, el };
      built += 1;
    });
    for (const stale of this.#shown.splice(blocks.length)) stale.el.remove();
    return built;
  }

  /** Forgets what is shown so the next update rebuilds every block (e.g. after a language change). */
  reset(root: HTMLElement): void {
    this.#shown = [];
    root.replaceChildren();
  }
}

async function copyCode(button: HTMLButtonElement, options: ViewOptions): Promise<void> {
  const code = button.closest('.md-code-wrap')?.querySelector('code')?.textContent ?? '';
  await navigator.clipboard.writeText(code);
  options.onCopied?.(button);
}

/** The click handler for a rendered document (event delegation). */
export function handleClick(event: MouseEvent, options: ViewOptions): void {
  const target = event.target instanceof Element ? event.target : null;
  const button = target?.closest<HTMLButtonElement>('button[data-action]');
  if (button?.dataset.action === 'copy') {
    void copyCode(button, options).catch(() => undefined);
    return;
  }
  if (button?.dataset.action === 'preview') {
    const pre = button.closest('.md-code-wrap')?.querySelector<HTMLElement>('pre');
    const code = pre?.querySelector('code')?.textContent ?? '';
    const kind = artifactKind(pre?.dataset.lang ?? '', code);
    if (kind) options.onPreview?.(kind, code);
    return;
  }
  if (button?.dataset.action === 'load-image') {
    const img = button.closest('.md-remote-image')?.previousElementSibling;
    if (img instanceof HTMLImageElement) loadImage(img);
    return;
  }
  const link = target?.closest('a');
  if (!link) return;
  event.preventDefault();
  const href = link.getAttribute('href') ?? '';
  if (SAFE_LINK.test(href)) options.openLink(href);
}
