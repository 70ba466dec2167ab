// The quick window's context: text the user picked from the selection or the clipboard, put
// before the next question as a quoted block that names where it came from (it is part of the
// message, never sent unseen).

/** Where a piece of context came from. */
export type ContextSource = 'selection' | 'clipboard';

/** One piece of context the user picked. */
export type PickedContext = { source: ContextSource; text: string };

/** The longest code fence in `text`, so the block around it can be longer. */
function fenceFor(text: string): string {
  const runs = text.match(/`{3,}/g) ?? [];
  const longest = runs.reduce((most, run) => Math.max(most, run.length), 2);
  return '`'.repeat(longest + 1);
}

/** The text put before the question: each picked piece in its own fenced block, labelled. */
export function contextPrefix(picked: PickedContext[], label: (source: ContextSource) => string): string {
  return picked
    .map(({ source, text }) => {
      const fence = fenceFor(text);
      return `${label(source)}\n${fence}\n${text}\n${fence}\n\n`;
    })
    .join('');
}

/** A short preview of `text` for its chip: its first line, cut to `max` characters. */
export function preview(text: string, max = 48): string {
  const first = text.split('\n', 1)[0]!.trim();
  return first.length > max ? `${first.slice(0, max - 1)}…` : first;
}
