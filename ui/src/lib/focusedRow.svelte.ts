// Which row of a windowed list holds the keyboard focus, so the list keeps that row rendered
// while it is near (MessageList, the sidebar). Fed by the list element's focusin and focusout.

/** The key of the focused row: `data-<key>` of the closest `row` around the focused element,
 * or null once the focus leaves the list. */
export class FocusedRow {
  key = $state<string | null>(null);

  constructor(
    private readonly row: string,
    private readonly attribute: string,
  ) {}

  /** For the list's `onfocusin`. */
  focusin = (event: FocusEvent) => {
    const row = (event.target as Element | null)?.closest<HTMLElement>(this.row);
    this.key = row?.dataset[this.attribute] ?? null;
  };

  /** For the list's `onfocusout`: the focus moving within the list keeps the key until its
   * focusin. */
  focusout = (event: FocusEvent) => {
    const next = event.relatedTarget as Node | null;
    if (!next || !(event.currentTarget as Node | null)?.contains(next)) this.key = null;
  };
}
