// A knowledge base's files for the settings panel, a page at a time (a base may hold 100,000
// files): filtered by a part of the path and to those not indexed; `more()` adds the next page.
import type { IpcError, KnowledgeFile } from '../bindings';
import { toIpcError } from './errors.svelte';
import { knowledgeFiles } from './knowledge.svelte';

/** Files asked for at a time. */
export const FILES_PAGE = 100;

export class FilesPager {
  files = $state<KnowledgeFile[]>([]);
  total = $state(0);
  contains = $state('');
  failedOnly = $state(false);
  loading = $state(false);
  /** Bumped by each new query, so an answer to an older one is dropped. */
  #asked = 0;

  readonly #name: string;
  readonly #onerror: (error: IpcError) => void;

  /** The files of base `name`; a failed load goes to `onerror`. */
  constructor(name: string, onerror: (error: IpcError) => void) {
    this.#name = name;
    this.#onerror = onerror;
  }

  /** The first page for the current filter. */
  reload(): Promise<void> {
    return this.#load(false);
  }

  /** The next page. */
  more(): Promise<void> {
    return this.#load(true);
  }

  async #load(more: boolean) {
    const ask = more ? this.#asked : ++this.#asked;
    this.loading = true;
    try {
      const query = { contains: this.contains, failedOnly: this.failedOnly, offset: more ? this.files.length : 0, limit: FILES_PAGE };
      const page = await knowledgeFiles(this.#name, query);
      if (ask !== this.#asked) return;
      this.files = more ? [...this.files, ...page.files] : page.files;
      this.total = page.total;
    } catch (error) {
      this.#onerror(toIpcError(error));
    } finally {
      if (ask === this.#asked) this.loading = false;
    }
  }
}
