// The composer's slash commands: typing `/` at the start of the box lists the prompts of the
// conversation's MCP servers (asked for once per slash, then filtered as you type); the arrow
// keys move through the list, Enter or Tab picks, Escape closes it until the slash is gone.
import { filterPrompts, loadPrompts, slashQuery, type PromptEntry } from '../../lib/mcpContent';

export class SlashMenu {
  #text: () => string;
  #servers: () => (() => Promise<string[]>) | undefined;
  #pick: (entry: PromptEntry) => void;
  /** The prompts were asked for since the slash was typed (plain: not a dependency). */
  #requested = false;

  /** The servers' prompts, once loaded for the current slash (null while they load). */
  prompts = $state<PromptEntry[] | null>(null);
  /** The highlighted entry of `matches`. */
  active = $state(0);
  /** Escape closed the menu for the current slash text. */
  dismissed = $state(false);
  /** What follows the slash, or null when the box does not start a slash command. */
  query = $derived(this.#slashQuery());
  open = $derived(this.query !== null && !this.dismissed);
  matches = $derived(this.prompts && this.query !== null ? filterPrompts(this.prompts, this.query) : []);

  /** Made while a component initialises: `text` is the box's text, `servers` the prop listing
   * the conversation's servers (none: no slash commands), `pick` takes the chosen prompt. */
  constructor(text: () => string, servers: () => (() => Promise<string[]>) | undefined, pick: (entry: PromptEntry) => void) {
    this.#text = text;
    this.#servers = servers;
    this.#pick = pick;

    $effect(() => {
      if (this.query === null) {
        this.dismissed = false;
        this.prompts = null;
        this.#requested = false;
        return;
      }
      const list = this.#servers();
      if (this.#requested || !list) return;
      this.#requested = true;
      void list()
        .then(loadPrompts)
        .then(
          (found) => (this.prompts = found),
          () => (this.prompts = []),
        );
    });

    $effect(() => {
      void this.query;
      this.active = 0;
    });
  }

  #slashQuery(): string | null {
    return this.#servers() ? slashQuery(this.#text()) : null;
  }

  /** Arrow keys, Enter, Tab and Escape while the list is open; true when the key was handled. */
  key(event: KeyboardEvent): boolean {
    if (!this.open) return false;
    if (event.key === 'Escape') {
      this.dismissed = true;
      return true;
    }
    const count = this.matches.length;
    if (count === 0) return false;
    if (event.key === 'ArrowDown') this.active = (this.active + 1) % count;
    else if (event.key === 'ArrowUp') this.active = (this.active - 1 + count) % count;
    else if ((event.key === 'Enter' && !event.shiftKey) || event.key === 'Tab') this.#pick(this.matches[this.active]!);
    else return false;
    return true;
  }
}
