// The files attached in the composer: picked in the file dialog, pasted, dropped on the box or,
// from the desktop, on the window (a bundle dropped there opens its preview instead, see
// App.svelte). Each is made ready by the engine ("Preparing…" meanwhile): images as
// thumbnails, text, code and PDF files with their token count (see `lib/uploads.svelte.ts`).
// An image for a model that cannot see images is flagged (`blind`).
import type { IpcError, PreparedFile } from '../../bindings';
import { toIpcError } from '../../lib/errors.svelte';
import { isBundlePath } from '../../lib/installForm';
import { attachBlob, attachPath, filesOf, filesTokens, listenForDrops, pickFiles } from '../../lib/uploads.svelte';

export class ComposerFiles {
  files = $state<PreparedFile[]>([]);
  /** The names of the files being made ready. */
  preparing = $state<string[]>([]);
  /** An image is attached and the conversation's model cannot see images. */
  blind = $state(false);
  hasImages = $derived(this.files.some((f) => f.part.type === 'image_ref'));
  /** The tokens the text, code and PDF files add to the message. */
  tokens = $derived(filesTokens(this.files.filter((f) => f.part.type === 'file')));

  #imageSupport: () => (() => Promise<boolean | null>) | undefined;
  #report: (failure: IpcError | null) => void;

  /** Made while a component initialises (it listens for files dropped on the window until the
   * component goes): `imageSupport` is the prop asking whether the model sees images, `report`
   * shows a refusal (null clears it). */
  constructor(imageSupport: () => (() => Promise<boolean | null>) | undefined, report: (failure: IpcError | null) => void) {
    this.#imageSupport = imageSupport;
    this.#report = report;

    $effect(() => {
      let stop: (() => void) | null = null;
      let gone = false;
      void listenForDrops((paths) => this.attachPaths(paths.filter((p) => !isBundlePath(p)))).then((unlisten) => {
        if (gone) unlisten();
        else stop = unlisten;
      });
      return () => {
        gone = true;
        stop?.();
      };
    });
  }

  /** Waits for one file to be made ready (shown as "Preparing…" meanwhile); a refusal is shown. */
  async #prepare(name: string, work: Promise<PreparedFile>) {
    this.preparing = [...this.preparing, name];
    try {
      const file = await work;
      this.files = [...this.files, file];
      this.#report(null);
      const imageSupport = this.#imageSupport();
      if (file.part.type === 'image_ref' && imageSupport) this.blind = (await imageSupport()) === false;
    } catch (error) {
      this.#report(toIpcError(error));
    } finally {
      const at = this.preparing.indexOf(name);
      this.preparing = this.preparing.filter((_, i) => i !== at);
    }
  }

  attachPaths(paths: string[]) {
    for (const path of paths) void this.#prepare(path.split(/[\\/]/).pop() ?? path, attachPath(path));
  }

  attachFiles(list: File[]) {
    for (const file of list) void this.#prepare(file.name || file.type, attachBlob(file));
  }

  /** The file dialog. */
  async pick() {
    try {
      this.attachPaths(await pickFiles());
    } catch (error) {
      this.#report(toIpcError(error));
    }
  }

  /** Files pasted into, or dropped on, the composer (other pastes and drops are left alone). */
  take = (event: ClipboardEvent | DragEvent) => {
    const found = filesOf('dataTransfer' in event ? event.dataTransfer : event.clipboardData);
    if (found.length === 0) return;
    event.preventDefault();
    this.attachFiles(found);
  };

  remove(index: number) {
    this.files = this.files.filter((_, n) => n !== index);
    if (!this.hasImages) this.blind = false;
  }

  clear() {
    this.files = [];
  }
}
