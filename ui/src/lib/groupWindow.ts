// Windowing for the sidebar's conversation list: groups (Pinned, Today, …) of rows of one
// height, one after another, each under a heading. Which rows of each group to render for a
// scroll position, and how much space the rows not rendered take above and below them. Rows
// share one height (a title on one line), so the arithmetic needs no per-row measurement.
// Pure code (no DOM), so it is tested without a layout engine.

/** The rows of one group to render: indices `start` (inclusive) to `end` (exclusive), and the
 * space (pixels) the group's rows before and after them take. */
export type Slice = { start: number; end: number; before: number; after: number };

/** The list's geometry (pixels): where the first group starts, a heading's height, the gap
 * between groups, and the distance from one row's top to the next one's. */
export type GroupLayout = { top: number; head: number; gap: number; pitch: number };

/** A row that must stay rendered (focused or being renamed): its group and index there. */
export type Kept = { group: number; index: number };

/** How many rows away from the rendered ones a kept row may be and still be rendered (a
 * focused row scrolled far away is let go, as in the message list). */
export const KEEP_WITHIN = 50;

/** For groups of `counts` rows laid out by `layout`, the rows of each that meet the viewport
 * `[top, top + height)` widened by `overscan` pixels on each side, stretched to reach the
 * `kept` rows that are near. */
export function sliceGroups(
  counts: readonly number[],
  layout: GroupLayout,
  top: number,
  height: number,
  overscan: number,
  kept: readonly Kept[] = [],
): Slice[] {
  const pitch = Math.max(1, layout.pitch);
  const from = top - overscan;
  const to = top + height + overscan;
  let y = layout.top;
  return counts.map((count, group) => {
    if (group > 0) y += layout.gap;
    y += layout.head;
    const first = y;
    y += count * pitch;
    let start = clamp(Math.floor((from - first) / pitch), 0, count);
    let end = clamp(Math.ceil((to - first) / pitch), start, count);
    for (const k of kept) {
      if (k.group !== group || k.index < 0 || k.index >= count) continue;
      if (k.index < start - KEEP_WITHIN || k.index >= end + KEEP_WITHIN) continue;
      start = Math.min(start, k.index);
      end = Math.max(end, k.index + 1);
    }
    return { start, end, before: start * pitch, after: (count - end) * pitch };
  });
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}

/** Where row `index` of group `group` starts (pixels from the top of the list's content). */
export function rowTop(counts: readonly number[], layout: GroupLayout, group: number, index: number): number {
  let y = layout.top;
  for (let g = 0; g < group; g++) y += layout.head + counts[g]! * layout.pitch + layout.gap;
  return y + layout.head + index * layout.pitch;
}
