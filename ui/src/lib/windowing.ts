// Windowing for long lists of rows of different heights (the chat's messages): which rows to
// render for a scroll position, and how tall the unrendered space above and below them is.
// Heights are estimated until a row has been on screen and measured, then remembered by key.
// Pure code (no DOM), so the arithmetic is tested without a layout engine.

/** The rows to render: indices `start` (inclusive) to `end` (exclusive), and the space the
 * rows before and after them take (pixels). */
export type Range = { start: number; end: number; before: number; after: number };

/** Measured row heights by key, with an estimate for rows never measured. */
export class Heights<T> {
  #measured = new Map<string, number>();

  constructor(
    private readonly key: (item: T) => string,
    private readonly estimate: (item: T) => number,
  ) {}

  /** The measured height of `item`, or its estimate. */
  of(item: T): number {
    return this.#measured.get(this.key(item)) ?? this.estimate(item);
  }

  /** Records a measurement; returns how much the row grew (negative: shrank) compared with
   * what was assumed before. */
  set(key: string, height: number, assumed: number): number {
    const before = this.#measured.get(key) ?? assumed;
    this.#measured.set(key, height);
    return height - before;
  }

  /** Whether `key`'s row has been measured. */
  has(key: string): boolean {
    return this.#measured.has(key);
  }

  /** Forgets rows whose keys are not in `keep` (messages gone after a branch switch). */
  prune(keep: { has(key: string): boolean }): void {
    for (const key of this.#measured.keys()) if (!keep.has(key)) this.#measured.delete(key);
  }
}

/** Where each row starts: `offsets[i]` is the top of row `i`, `offsets[n]` the total height. */
export function offsetsOf(heights: readonly number[]): Float64Array {
  const offsets = new Float64Array(heights.length + 1);
  for (let i = 0; i < heights.length; i++) offsets[i + 1] = offsets[i]! + heights[i]!;
  return offsets;
}

/** The first row whose bottom is below `y` (`n` when none is). */
function rowAt(offsets: Float64Array, y: number): number {
  let low = 0;
  let high = offsets.length - 1;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (offsets[mid + 1]! > y) high = mid;
    else low = mid + 1;
  }
  return low;
}

/** How many rows start above `y`. */
function rowsAbove(offsets: Float64Array, y: number): number {
  let low = 0;
  let high = offsets.length - 1;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (offsets[mid]! < y) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** The rows that meet the viewport `[top, top + height)` widened by `overscan` pixels on each
 * side; with `keep`, that row's index is rendered too (stretching the range to reach it) so a
 * focused row is not torn out from under the keyboard. */
export function windowAt(offsets: Float64Array, top: number, height: number, overscan: number, keep?: number): Range {
  const n = offsets.length - 1;
  const total = offsets[n]!;
  // Past the end (content that just shrank), the last row is still shown.
  let start = Math.min(rowAt(offsets, Math.max(0, top - overscan)), Math.max(0, n - 1));
  let end = Math.max(Math.min(n, start + 1), rowsAbove(offsets, top + height + overscan));
  if (keep !== undefined && keep >= 0 && keep < n) {
    start = Math.min(start, keep);
    end = Math.max(end, keep + 1);
  }
  start = Math.min(start, end);
  return { start, end, before: offsets[start]!, after: total - offsets[end]! };
}

/** The scroll position that shows the end of a list `total` pixels tall in a viewport
 * `height` pixels tall. */
export function bottomOf(total: number, height: number): number {
  return Math.max(0, total - height);
}

/** A guess at a message's height from its text, before it is measured: a frame plus a line
 * per ~90 characters or per line break. */
export function estimateHeight(text: string, role: string): number {
  if (role === 'tool') return 0;
  let lines = 0;
  for (const line of text.split('\n')) lines += Math.max(1, Math.ceil(line.length / 90));
  return 64 + 22 * lines;
}
