import { expect, test } from 'vitest';
import { bottomOf, estimateHeight, Heights, offsetsOf, windowAt } from './windowing';

const hundredRowsOf50 = () => offsetsOf(Array.from({ length: 100 }, () => 50));

test('offsets are the running sum of the heights, ending with the total', () => {
  expect([...offsetsOf([10, 0, 25, 5])]).toEqual([0, 10, 10, 35, 40]);
  expect([...offsetsOf([])]).toEqual([0]);
});

test('the window covers the viewport plus the overscan on each side, and the spacers the rest', () => {
  const range = windowAt(hundredRowsOf50(), 1000, 200, 100);
  // Rows 18 (900–950) to 26 (1300–1350) meet 900..1300.
  expect(range).toEqual({ start: 18, end: 26, before: 900, after: 5000 - 1300 });
});

test('at the top the window starts at the first row, at the bottom it ends with the last', () => {
  const offsets = hundredRowsOf50();
  expect(windowAt(offsets, 0, 200, 100)).toEqual({ start: 0, end: 6, before: 0, after: 5000 - 300 });
  const end = windowAt(offsets, bottomOf(5000, 200), 200, 100);
  expect(end).toEqual({ start: 94, end: 100, before: 4700, after: 0 });
});

test('rows of very different heights are found by position, not by count', () => {
  const offsets = offsetsOf([1000, 20, 20, 20, 3000, 20]);
  expect(windowAt(offsets, 1010, 50, 0)).toMatchObject({ start: 1, end: 4 });
  expect(windowAt(offsets, 2000, 100, 0)).toMatchObject({ start: 4, end: 5 });
});

test('an empty list gives an empty window with no space around it', () => {
  expect(windowAt(offsetsOf([]), 0, 800, 600)).toEqual({ start: 0, end: 0, before: 0, after: 0 });
});

test('a kept row outside the viewport stretches the window to include it', () => {
  const offsets = hundredRowsOf50();
  expect(windowAt(offsets, 1000, 200, 0, 5)).toEqual({ start: 5, end: 24, before: 250, after: 5000 - 1200 });
  expect(windowAt(offsets, 1000, 200, 0, 60)).toMatchObject({ start: 20, end: 61 });
  expect(windowAt(offsets, 1000, 200, 0, 400)).toMatchObject({ start: 20, end: 24 });
});

test('a scroll position past the end shows the last rows, not nothing', () => {
  expect(windowAt(hundredRowsOf50(), 99999, 200, 0)).toMatchObject({ start: 99, end: 100, after: 0 });
});

test('the bottom scroll position never goes above the top', () => {
  expect(bottomOf(5000, 800)).toBe(4200);
  expect(bottomOf(300, 800)).toBe(0);
});

test('heights are estimated until measured, and a measurement reports how much the row moved', () => {
  type Row = { id: string; guess: number };
  const heights = new Heights<Row>(
    (r) => r.id,
    (r) => r.guess,
  );
  const a = { id: 'a', guess: 100 };
  expect(heights.of(a)).toBe(100);
  expect(heights.has('a')).toBe(false);
  expect(heights.set('a', 140, heights.of(a))).toBe(40);
  expect(heights.of(a)).toBe(140);
  expect(heights.set('a', 120, heights.of(a))).toBe(-20);
  expect(heights.set('a', 120, heights.of(a))).toBe(0);
  heights.prune(new Set(['b']));
  expect(heights.has('a')).toBe(false);
  expect(heights.of(a)).toBe(100);
});

test('a longer text is estimated taller, and tool messages (not shown) take no space', () => {
  const short = estimateHeight('hi', 'user');
  expect(estimateHeight('word '.repeat(200), 'assistant')).toBeGreaterThan(short);
  expect(estimateHeight('a\nb\nc\nd', 'assistant')).toBeGreaterThan(short);
  expect(estimateHeight('anything', 'tool')).toBe(0);
});
