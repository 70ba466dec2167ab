// The Markdown pipeline and its heavy parts, loaded on demand so the first screen (sidebar and an
// empty chat) does not wait for them: the pipeline itself (marked, DOMPurify, the block renderer),
// highlight.js (when a fenced block names a language; a small language set first, the rest of
// highlight.js's common set when a block names a language outside it) and KaTeX with its styles
// (when a block holds math), or as soon as a message is sent (`warm`). Whatever renders without a
// part asks for it and draws a plainer version meanwhile; `version` changes when a part arrives,
// so views rebuild with it.
import type { HLJSApi } from 'highlight.js';
import type { default as Katex } from 'katex';

/** The pipeline module (renderer, view, click handling). */
export type Pipeline = typeof import('./view');

/** One part loaded at most once; `current` is null until it has arrived. */
export class Part<T> {
  #value: T | null = null;
  #loading: Promise<T> | null = null;
  readonly #load: () => Promise<T>;
  readonly #arrived: () => void;

  constructor(load: () => Promise<T>, arrived: () => void) {
    this.#load = load;
    this.#arrived = arrived;
  }

  /** The part if it has arrived. */
  get current(): T | null {
    return this.#value;
  }

  /** Whether the part was asked for and has not arrived yet. */
  get loading(): boolean {
    return this.#loading !== null && this.#value === null;
  }

  /** Starts loading the part (once) and resolves with it. A failed load may be tried again. */
  load(): Promise<T> {
    this.#loading ??= this.#load().then(
      (value) => {
        this.#value = value;
        this.#arrived();
        return value;
      },
      (error: unknown) => {
        this.#loading = null;
        throw error;
      },
    );
    return this.#loading;
  }

  /** Asks for the part without waiting (a failure is retried by the next request). */
  request(): void {
    void this.load().catch(() => undefined);
  }
}

/** The loadable parts of Markdown rendering. */
export class MarkdownAssets {
  /** Bumped each time a part arrives: output built without it can now be built better. */
  version = $state(0);
  readonly #bump = () => (this.version += 1);
  readonly pipeline = new Part<Pipeline>(() => import('./view'), this.#bump);
  /** highlight.js with a small set of languages registered. */
  readonly highlighter = new Part<HLJSApi>(async () => (await import('./highlight')).hljs, this.#bump);
  /** The rest of highlight.js's common languages, registered into `highlighter`. */
  readonly moreLanguages = new Part<true>(async () => {
    const hljs = await this.highlighter.load();
    (await import('./highlightMore')).registerMore(hljs);
    return true;
  }, this.#bump);
  readonly katex = new Part<typeof Katex>(async () => (await import('./katex')).katex, this.#bump);

  /** Starts loading highlight.js and KaTeX without waiting: called when an answer is about to
   * stream, so they arrive before its first tokens rather than in the middle of them. */
  warm(): void {
    this.pipeline.request();
    this.highlighter.request();
    this.katex.request();
  }

  /** Loads every part (benchmarks, tests and anything that must render fully at once). */
  async loadAll(): Promise<void> {
    await Promise.all([this.pipeline.load(), this.moreLanguages.load(), this.katex.load()]);
  }
}

/** The app's one set of Markdown parts. */
export const markdownAssets = new MarkdownAssets();
