import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { beforeEach, expect, test } from 'vitest';
import type { Message } from '../bindings';
import App from '../App.svelte';
import { conversationHref, navigate } from '../lib/router.svelte';
import { conversation, installFakeBackend } from '../test/fakeBackend';
import { resetAppState } from '../test/reset';

beforeEach(() => resetAppState());

const base = { parentId: null, model: null, usage: null, error: null, createdAt: 1, updatedAt: 1, status: 'complete' } as const;

function thread(conversationId: string, prefix: string, n: number): Message[] {
  return Array.from({ length: n }, (_, i) => ({
    ...base,
    id: `${prefix}${i}`,
    conversationId,
    role: i % 2 ? 'assistant' : 'user',
    content: [{ type: 'text', text: `${prefix} message ${i}` }],
  }));
}

const texts = () => screen.queryAllByTestId('message-text').map((el) => el.textContent?.trim());

test('a conversation opens at its end even when the previous one was scrolled up', async () => {
  const a = conversation({ title: 'A' });
  const b = conversation({ title: 'B' });
  const stored = new Map([
    [a.id, thread(a.id, 'a', 60)],
    [b.id, thread(b.id, 'b', 60)],
  ]);
  installFakeBackend([a, b], {
    extra: (cmd, args) => {
      if (cmd === 'list_providers') return [{ provider: { id: 'p', name: 'fake', settings: { toolModes: {}, strictTools: false } }, key: { source: null, masked: null } }];
      if (cmd === 'conversation_messages') return stored.get(String(args.conversationId)) ?? [];
      if (cmd === 'message_siblings') return [args.messageId];
      if (cmd === 'tool_costs') return [];
      return undefined;
    },
  });
  navigate(conversationHref(a.id));
  render(App);
  await waitFor(() => expect(texts()).toContain('a message 59'));

  // Scroll A up to its top (jsdom lays nothing out: give the scroller a size to scroll in).
  const scroller = screen.getByTestId('messages').parentElement!;
  Object.defineProperties(scroller, {
    clientHeight: { configurable: true, get: () => 600 },
    scrollHeight: { configurable: true, get: () => 6000 },
    scrollTop: { configurable: true, get: () => 0, set: () => undefined },
  });
  await fireEvent.scroll(scroller);
  await waitFor(() => expect(texts()).toContain('a message 0'));

  navigate(conversationHref(b.id));
  await waitFor(() => expect(texts()).toContain('b message 59'));
  expect(texts()).not.toContain('b message 0');
});
