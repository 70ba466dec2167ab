// Performance marks for the benchmarks: a mark at the end of the first frame painted after a
// milestone (e.g. the conversation list shown), read from the real window through WebDriver
// (`performance.getEntriesByName`) to time a cold start. Costs one frame callback, once.

/** Marks `name` once the next frame has been painted; only the first call per name counts. */
export function markNextPaint(name: string): void {
  if (typeof performance === 'undefined' || typeof requestAnimationFrame === 'undefined') return;
  if (performance.getEntriesByName(name).length > 0) return;
  requestAnimationFrame(() => setTimeout(() => performance.mark(name)));
}

/** The mark set when the conversation list is first on screen. */
export const CONVERSATIONS_PAINTED = 'switchboard:conversations-painted';

/** Marks `name` at the end of the next painted frame, every time (a window shown again). The
 * benchmark reads each as wall-clock time: `performance.timeOrigin + startTime`. */
export function markEveryPaint(name: string): void {
  if (typeof performance === 'undefined' || typeof requestAnimationFrame === 'undefined') return;
  requestAnimationFrame(() => setTimeout(() => performance.mark(name)));
}

/** The mark set when the quick window is painted, at its first opening and each showing after. */
export const QUICK_PAINTED = 'switchboard:quick-painted';
