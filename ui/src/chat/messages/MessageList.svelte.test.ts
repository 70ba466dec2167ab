import { fireEvent, render, screen } from '@testing-library/svelte';
import { createRawSnippet, flushSync } from 'svelte';
import { expect, test, vi } from 'vitest';
import MessageList from './MessageList.svelte';

type Item = { id: string; label: string };

const items = (n: number): Item[] => Array.from({ length: n }, (_, i) => ({ id: `m${i}`, label: `message ${i}` }));
const row = createRawSnippet((item: () => Item) => ({
  render: () => `<button type="button" data-testid="row">${item().label}</button>`,
}));
const labels = () => screen.queryAllByTestId('row').map((el) => el.textContent);

/** jsdom lays nothing out: give the scroller a viewport and a content height to scroll in. */
function fakeLayout(scroller: HTMLElement, rows: number, rowHeight = 50, viewport = 600) {
  let top = 0;
  Object.defineProperties(scroller, {
    clientHeight: { configurable: true, get: () => viewport },
    scrollHeight: { configurable: true, get: () => rows * rowHeight + 24 },
    scrollTop: { configurable: true, get: () => top, set: (v: number) => (top = Math.max(0, Math.min(v, rows * rowHeight + 24 - viewport))) },
  });
  return {
    scrollTo(y: number) {
      top = y;
      fireEvent.scroll(scroller);
      flushSync();
    },
  };
}

function setup(n: number, onreachtop?: () => void) {
  const props = $state({ items: items(n), key: (m: Item) => m.id, estimate: () => 50, row, following: true, onreachtop });
  const view = render(MessageList<Item>, { props });
  const scroller = view.container.querySelector<HTMLElement>('[aria-busy]')!;
  return { props, scroller, list: screen.getByTestId('messages') };
}

test('a 2,000-message list renders only the rows around its end, which it shows first', () => {
  const { list } = setup(2000);
  const shown = labels();
  expect(shown.length).toBeLessThan(60);
  expect(shown.at(-1)).toBe('message 1999');
  expect(shown).not.toContain('message 0');
  expect(list).toHaveAttribute('data-total', '2000');
});

test('scrolling up stops following: the rows at the new position are rendered and new rows do not pull the view down', () => {
  const { props, scroller } = setup(2000);
  const layout = fakeLayout(scroller, 2000);
  layout.scrollTo(50 * 1000);
  expect(props.following).toBe(false);
  expect(labels()).toContain('message 1005');
  expect(labels()).not.toContain('message 1999');

  props.items = [...props.items, { id: 'm2000', label: 'message 2000' }];
  flushSync();
  expect(labels()).toContain('message 1005');
  expect(labels()).not.toContain('message 2000');
  expect(scroller.scrollTop).toBe(50 * 1000);
});

test('scrolling back to the end follows again, and new rows are shown', () => {
  const { props, scroller } = setup(200);
  const layout = fakeLayout(scroller, 200);
  layout.scrollTo(1000);
  expect(props.following).toBe(false);
  layout.scrollTo(200 * 50 + 24 - 600);
  expect(props.following).toBe(true);
  props.items = [...props.items, { id: 'm200', label: 'message 200' }];
  flushSync();
  expect(labels().at(-1)).toBe('message 200');
});

test('a row holding the keyboard focus stays rendered when it scrolls a little out of view', () => {
  const { scroller } = setup(2000);
  const layout = fakeLayout(scroller, 2000);
  layout.scrollTo(50 * 1000);
  const focused = screen.getAllByTestId('row').find((el) => el.textContent === 'message 1005')!;
  focused.focus();
  flushSync();
  layout.scrollTo(50 * 1040);
  expect(labels()).toContain('message 1005');
  expect(document.activeElement).toBe(focused);

  // Far away, it is let go (rendering everything in between would defeat the windowing).
  layout.scrollTo(50 * 1500);
  expect(labels()).not.toContain('message 1005');
});

test('the rows not rendered are stood in for by spacers of their estimated height', () => {
  const { list, scroller } = setup(2000);
  fakeLayout(scroller, 2000).scrollTo(50 * 1000);
  const [before, after] = [...list.children].filter((el) => el.classList.contains('spacer')) as HTMLElement[];
  const first = Number(labels()[0]!.split(' ')[1]);
  const last = Number(labels().at(-1)!.split(' ')[1]);
  expect(before!.style.height).toBe(`${first * 50}px`);
  expect(after!.style.height).toBe(`${(1999 - last) * 50}px`);
});

test('scrolling near the top asks for older rows, and rows added above keep the view in place', () => {
  let asked = 0;
  const { props, scroller } = setup(100, () => (asked += 1));
  let rows = 100;
  let top = 0;
  Object.defineProperties(scroller, {
    clientHeight: { configurable: true, get: () => 600 },
    scrollHeight: { configurable: true, get: () => rows * 50 + 24 },
    scrollTop: { configurable: true, get: () => top, set: (v: number) => (top = v) },
  });
  top = 3000;
  fireEvent.scroll(scroller);
  flushSync();
  expect(asked).toBe(0);
  top = 500;
  fireEvent.scroll(scroller);
  flushSync();
  expect(asked).toBe(1);
  const atTop = (list: Item[]) => list[Math.floor(top / 50)]!.label;
  expect(atTop(props.items)).toBe('message 10');

  const older = Array.from({ length: 40 }, (_, i) => ({ id: `old${i}`, label: `old ${i}` }));
  rows = 140;
  props.items = [...older, ...props.items];
  flushSync();
  expect(top).toBe(500 + 40 * 50);
  expect(atTop(props.items)).toBe('message 10');
  expect(labels()).toEqual(expect.arrayContaining(['old 39', 'message 10', 'message 20']));
});

test('heights measured in a branch that is no longer shown are forgotten when the list changes', () => {
  const observers: ((entries: ResizeObserverEntry[]) => void)[] = [];
  vi.stubGlobal('ResizeObserver', class {
    constructor(callback: (entries: ResizeObserverEntry[]) => void) {
      observers.push(callback);
    }
    observe() {}
    unobserve() {}
    disconnect() {}
  });
  try {
    const { props, list } = setup(100);
    const spaceAbove = () => list.querySelector<HTMLElement>('.spacer')!.style.height;
    const estimated = spaceAbove();
    const first = document.createElement('div');
    first.dataset.key = 'm0';
    observers[0]!([{ target: first, borderBoxSize: [{ blockSize: 500 }] } as unknown as ResizeObserverEntry]);
    flushSync();
    expect(parseFloat(spaceAbove())).toBe(parseFloat(estimated) + 450);

    const original = props.items;
    props.items = [{ id: 'x0', label: 'another branch' }, ...original.slice(1)];
    flushSync();
    props.items = original;
    flushSync();

    expect(spaceAbove()).toBe(estimated);
  } finally {
    vi.unstubAllGlobals();
  }
});
