import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { tick } from 'svelte';
import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import App from '../App.svelte';
import { conversations } from '../lib/conversations.svelte';
import { UNDO_MS } from '../lib/deletions.svelte';
import { conversation, installFakeBackend } from '../test/fakeBackend';
import { resetAppState } from '../test/reset';

const ids = () => screen.queryAllByTestId('conversation-row').map((r) => r.dataset.id);

function seed() {
  return installFakeBackend([
    conversation({ id: 'a', title: 'Alpha', updatedAt: Date.now() - 1000 }),
    conversation({ id: 'b', title: 'Beta', updatedAt: Date.now() - 2000 }),
  ]);
}

async function deleteRow(user: ReturnType<typeof userEvent.setup>, id: string) {
  await waitFor(() => expect(ids()).toContain(id));
  const row = screen.getAllByTestId('conversation-row').find((r) => r.dataset.id === id)!;
  await user.click(within(row).getByTestId('delete-button'));
}

beforeEach(() => resetAppState());
afterEach(() => {
  resetAppState();
  vi.useRealTimers();
});

test('Undo puts the conversation back and nothing is ever deleted', async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const backend = seed();
  const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
  render(App);
  await deleteRow(user, 'a');
  expect(ids()).toEqual(['b']);
  const toast = screen.getByTestId('undo-toast');
  expect(toast).toHaveTextContent('Deleted “Alpha”');
  await user.click(within(toast).getByRole('button', { name: 'Undo' }));
  expect(ids()).toEqual(['a', 'b']);
  expect(screen.queryByTestId('undo-toast')).toBeNull();
  await vi.advanceTimersByTimeAsync(UNDO_MS * 2);
  expect(backend.callsTo('delete_conversation')).toEqual([]);
  expect(backend.rows().map((c) => c.id).sort()).toEqual(['a', 'b']);
});

test('the conversation is deleted in the database only when the toast expires', async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const backend = seed();
  const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
  render(App);
  await deleteRow(user, 'b');
  await vi.advanceTimersByTimeAsync(UNDO_MS - 1);
  expect(backend.callsTo('delete_conversation')).toEqual([]);
  expect(backend.rows().map((c) => c.id).sort()).toEqual(['a', 'b']);
  await vi.advanceTimersByTimeAsync(1);
  expect(backend.callsTo('delete_conversation')).toEqual([{ id: 'b' }]);
  expect(backend.rows().map((c) => c.id)).toEqual(['a']);
  await tick();
  expect(screen.queryByTestId('undo-toast')).toBeNull();
  expect(ids()).toEqual(['a']);
});

test('Ctrl+Z outside a text field undoes the newest deletion; each deletion has its own toast', async () => {
  const backend = seed();
  const user = userEvent.setup();
  render(App);
  await deleteRow(user, 'a');
  await deleteRow(user, 'b');
  expect(screen.getAllByTestId('undo-toast').map((t) => t.dataset.id)).toEqual(['a', 'b']);
  expect(ids()).toEqual([]);
  document.body.focus();
  await user.keyboard('{Control>}z{/Control}');
  expect(ids()).toEqual(['b']);
  expect(screen.getAllByTestId('undo-toast').map((t) => t.dataset.id)).toEqual(['a']);
  screen.getByRole('searchbox', { name: 'Search messages' }).focus();
  await user.keyboard('{Control>}z{/Control}');
  expect(ids()).toEqual(['b']);
  expect(backend.callsTo('delete_conversation')).toEqual([]);
});

test('a delete the engine refuses lists the conversation again and says why', async () => {
  const backend = seed();
  backend.fail('delete_conversation', { kind: 'database_locked', message: 'database is locked' });
  const user = userEvent.setup();
  render(App);
  await deleteRow(user, 'a');
  await user.click(screen.getByRole('button', { name: 'Delete now' }));
  expect(await screen.findByTestId('error-banner')).toHaveTextContent('Database is locked');
  expect(ids()).toEqual(['a', 'b']);
});

test('a conversation awaiting deletion does not come back when the list is loaded again', async () => {
  const backend = seed();
  const user = userEvent.setup();
  render(App);
  await deleteRow(user, 'a');
  await conversations.load();
  expect(ids()).toEqual(['b']);
  expect(backend.callsTo('list_conversations').length).toBeGreaterThan(1);
});
