import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { flushSync } from 'svelte';
import { afterEach, beforeEach, expect, test } from 'vitest';
import App from '../App.svelte';
import { conversation, installFakeBackend } from '../test/fakeBackend';
import { resetAppState } from '../test/reset';

// The sidebar renders only the rows near its viewport once it is laid out. jsdom lays nothing
// out: the list gets a viewport and a scroll position here; rows keep CSS's 37 px pitch.
const PITCH = 37;
const titles = () => screen.queryAllByTestId('conversation-row').map((r) => r.textContent?.trim().split('\n')[0]);
const nav = () => screen.getByRole('navigation', { name: 'Conversations' });

function fakeLayout(list: HTMLElement, viewport = 400) {
  let top = 0;
  Object.defineProperties(list, {
    clientHeight: { configurable: true, get: () => viewport },
    scrollHeight: { configurable: true, get: () => 100_000 },
    scrollTop: { configurable: true, get: () => top, set: (v: number) => (top = v) },
  });
  return (y: number) => {
    top = y;
    fireEvent.scroll(list);
    flushSync();
  };
}

async function loadTwoHundred() {
  const now = Date.now();
  installFakeBackend(
    Array.from({ length: 200 }, (_, i) => conversation({ id: `c${String(i).padStart(3, '0')}`, title: `Chat ${i}`, updatedAt: now - i * 1000 })),
  );
  const user = userEvent.setup();
  render(App);
  await waitFor(() => expect(titles()).toHaveLength(50));
  for (const expected of [100, 150, 200]) {
    await user.click(screen.getByTestId('load-more'));
    await waitFor(() => expect(titles()).toHaveLength(expected));
  }
  return { user, scrollTo: fakeLayout(nav()) };
}

beforeEach(() => resetAppState());
afterEach(() => resetAppState());

test('once laid out, the list renders the rows near its viewport and pads the rest', async () => {
  const { scrollTo } = await loadTwoHundred();
  scrollTo(0);
  const shown = titles();
  expect(shown.length).toBeLessThan(40);
  expect(shown[0]).toBe('Chat 0');
  const list = nav().querySelector('ul')!;
  expect(list.style.paddingTop).toBe('0px');
  expect(list.style.paddingBottom).toBe(`${(200 - shown.length) * PITCH}px`);
});

test('scrolling renders the rows at the new position and drops the ones far above', async () => {
  const { scrollTo } = await loadTwoHundred();
  scrollTo(100 * PITCH);
  const shown = titles();
  expect(shown).toContain('Chat 100');
  expect(shown).not.toContain('Chat 0');
  const first = Number(shown[0]!.replace('Chat ', ''));
  expect(nav().querySelector('ul')!.style.paddingTop).toBe(`${first * PITCH}px`);
  scrollTo(0);
  expect(titles()).toContain('Chat 0');
  expect(titles()).not.toContain('Chat 100');
});

test('the row holding the keyboard focus stays rendered while the list scrolls near it, and is let go far away', async () => {
  const { scrollTo } = await loadTwoHundred();
  scrollTo(0);
  screen.getByRole('link', { name: 'Chat 20' }).focus();
  // Without the focus the rendered rows would start at 40 here (600 px of overscan above).
  scrollTo(40 * PITCH + 630);
  expect(screen.getByRole('link', { name: 'Chat 20' })).toHaveFocus();
  expect(titles()[0]).toBe('Chat 20');
  scrollTo(100 * PITCH + 630);
  expect(titles()).not.toContain('Chat 20');
  expect(titles()[0]).toBe('Chat 100');
});

test('deleting a row far down the list moves the focus to the row that took its place', async () => {
  const { user, scrollTo } = await loadTwoHundred();
  scrollTo(120 * PITCH);
  const row = screen.getAllByTestId('conversation-row').find((r) => r.textContent?.includes('Chat 120'))!;
  within(row).getByTestId('delete-button').focus();
  await user.keyboard('{Enter}');
  await waitFor(() => expect(screen.getByRole('link', { name: 'Chat 121' })).toHaveFocus());
  expect(titles()).not.toContain('Chat 120');
});

test('New chat while scrolled far down scrolls to the new row and focuses its rename input', async () => {
  const { user, scrollTo } = await loadTwoHundred();
  scrollTo(150 * PITCH);
  expect(titles()).not.toContain('Chat 0');
  await user.click(screen.getByTestId('new-conversation'));
  const input = await screen.findByTestId('rename-input');
  await waitFor(() => expect(input).toHaveFocus());
  expect(nav().scrollTop).toBeLessThan(10 * PITCH);
  expect(titles()).toContain('Chat 0');
});
