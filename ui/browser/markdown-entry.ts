// Browser entry of the Markdown streaming benchmark (see markdown-stream.mjs): exposes one
// function that streams a document into a MarkdownView a few tokens per frame and times each
// update. highlight.js and KaTeX are loaded first (`benchReady`), so every update does the
// whole work.
import { markdownAssets } from '../src/lib/markdown/assets.svelte';
import { MarkdownView } from '../src/lib/markdown/view';

type Result = { frames: number[]; full: number };

function stream(doc: string, tokensPerFrame: number): Result {
  const tokens = doc.match(/[\s\S]{1,4}/g) ?? [];
  const root = document.createElement('div');
  document.body.append(root);
  const view = new MarkdownView();
  const options = {
    labels: { copy: 'Copy', loadImage: 'Load image', remoteImage: (host: string) => host },
    allowRemoteImages: false,
    openLink: () => undefined,
  };
  const frames: number[] = [];
  let text = '';
  tokens.forEach((token, i) => {
    text += token;
    if ((i + 1) % tokensPerFrame !== 0 && i !== tokens.length - 1) return;
    const started = performance.now();
    view.update(root, text, options);
    void root.offsetHeight; // include style and layout
    frames.push(performance.now() - started);
  });
  const started = performance.now();
  const fresh = document.createElement('div');
  document.body.append(fresh);
  new MarkdownView().update(fresh, doc, options);
  void fresh.offsetHeight;
  return { frames, full: performance.now() - started };
}

Object.assign(window, { benchStream: stream, benchReady: markdownAssets.loadAll() });
