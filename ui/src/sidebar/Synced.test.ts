import { render, screen, within } from '@testing-library/svelte';
import { emit } from '@tauri-apps/api/event';
import { beforeEach, expect, test } from 'vitest';
import App from '../App.svelte';
import type { SyncReport } from '../bindings';
import { conversation, installFakeBackend } from '../test/fakeBackend';
import { resetAppState } from '../test/reset';

beforeEach(() => resetAppState());

const report = (pulled: number): SyncReport => ({ pulled, pushed: 0, conflicts: 0, waiting: 0, batchesIn: 1, batchesOut: 0, bytesUp: 0, bytesDown: 900, requests: 3, millis: 40 });

function titles(): string[] {
  return screen.queryAllByTestId('conversation-row').map((r) => within(r).getByRole('link').textContent ?? '');
}

test('a sync that brought chats from another computer lists them in the sidebar; one that brought nothing reads nothing', async () => {
  const backend = installFakeBackend([conversation({ id: 'a', title: 'Made here' })]);
  render(App);
  await screen.findByRole('link', { name: 'Made here' });
  const lists = () => backend.callsTo('list_conversations').length;
  const before = lists();
  backend.add(conversation({ id: 'b', title: 'Made on the desktop', updatedAt: Date.now() + 1000 }));
  await emit('sync', report(0));
  await new Promise((r) => setTimeout(r, 50));
  expect(lists()).toBe(before);
  await emit('sync', report(2));
  await screen.findByRole('link', { name: 'Made on the desktop' });
  expect(titles()).toEqual(['Made on the desktop', 'Made here']);
});
