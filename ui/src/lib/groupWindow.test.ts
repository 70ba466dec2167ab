import { expect, test } from 'vitest';
import { KEEP_WITHIN, rowTop, sliceGroups, type GroupLayout } from './groupWindow';

const layout: GroupLayout = { top: 4, head: 26, gap: 14, pitch: 37 };

test('at the top only the first rows of the first group are rendered and the rest is padding', () => {
  const [slice] = sliceGroups([1000], layout, 0, 400, 600);
  expect(slice!.start).toBe(0);
  expect(slice!.end).toBe(Math.ceil((1000 - 30) / 37));
  expect(slice!.before).toBe(0);
  expect(slice!.after).toBe((1000 - slice!.end) * 37);
});

test('the padding and the rendered rows always add up to the whole group', () => {
  const counts = [3, 400, 1, 600];
  for (const top of [0, 500, 5000, 36_000, 99_999]) {
    sliceGroups(counts, layout, top, 700, 600).forEach((slice, g) => {
      expect(slice.start).toBeLessThanOrEqual(slice.end);
      expect(slice.before + (slice.end - slice.start) * 37 + slice.after).toBe(counts[g]! * 37);
    });
  }
});

test('scrolled into the middle, the rows around the viewport are rendered, in the group that holds them', () => {
  // Group 0: rows from 30 to 30 + 10 * 37 = 400; group 1 starts at 400 + 14 + 26 = 440.
  const [first, second] = sliceGroups([10, 1000], layout, 440 + 500 * 37, 400, 600);
  expect(first).toEqual({ start: 10, end: 10, before: 370, after: 0 });
  expect(second!.start).toBe(500 - Math.ceil(600 / 37));
  expect(second!.end).toBe(500 + Math.ceil(1000 / 37));
  expect(second!.before).toBe(second!.start * 37);
});

test('a group below the viewport renders nothing and keeps its height as padding', () => {
  const [, below] = sliceGroups([1000, 50], layout, 0, 400, 600);
  expect(below).toEqual({ start: 0, end: 0, before: 0, after: 50 * 37 });
});

test('a focused row near the rendered ones stays rendered; one far away is let go', () => {
  const plain = sliceGroups([1000], layout, 0, 400, 600)[0]!;
  const near = sliceGroups([1000], layout, 0, 400, 600, [{ group: 0, index: plain.end + 10 }])[0]!;
  expect(near.start).toBe(0);
  expect(near.end).toBe(plain.end + 11);
  const far = sliceGroups([1000], layout, 0, 400, 600, [{ group: 0, index: plain.end + KEEP_WITHIN + 1 }])[0]!;
  expect(far).toEqual(plain);
  const elsewhere = sliceGroups([1000, 5], layout, 0, 400, 600, [{ group: 1, index: 2 }]);
  expect(elsewhere[0]).toEqual(plain);
});

test('an empty group and a zero pitch do not divide by zero', () => {
  expect(sliceGroups([0], layout, 0, 400, 600)).toEqual([{ start: 0, end: 0, before: 0, after: 0 }]);
  const [slice] = sliceGroups([5], { ...layout, pitch: 0 }, 0, 400, 600);
  expect(slice!.end).toBe(5);
});

test('a row starts where the slices put it: after the groups above, their headings and gaps', () => {
  expect(rowTop([10, 1000], layout, 0, 0)).toBe(30);
  expect(rowTop([10, 1000], layout, 1, 500)).toBe(440 + 500 * 37);
  const [, second] = sliceGroups([10, 1000], layout, rowTop([10, 1000], layout, 1, 500), 1, 0);
  expect(second!.start).toBe(500);
});
