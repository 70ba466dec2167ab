import { beforeEach, expect, test } from 'vitest';
import type { Message } from '../bindings';
import { conversation, installFakeBackend } from '../test/fakeBackend';
import { resetAppState } from '../test/reset';
import { chat, PAGE_SIZE } from './chat.svelte';

beforeEach(() => resetAppState());

const base = { parentId: null, model: null, usage: null, error: null, createdAt: 1, updatedAt: 1, status: 'complete' } as const;

/** A conversation of `n` messages, with a fake `conversation_messages` that pages like the engine. */
function setup(n: number) {
  const conv = conversation({ title: 'Long' });
  const messages: Message[] = Array.from({ length: n }, (_, i) => ({
    ...base,
    id: `m${i}`,
    conversationId: conv.id,
    role: i % 2 ? 'assistant' : 'user',
    content: [{ type: 'text', text: `message ${i}` }],
  }));
  const backend = installFakeBackend([conv], {
    extra: (cmd, args) => {
      if (cmd !== 'conversation_messages') return undefined;
      const end = args.before ? messages.findIndex((m) => m.id === args.before) : messages.length;
      const limit = (args.limit as number | undefined) ?? end;
      return messages.slice(Math.max(0, end - limit), end);
    },
  });
  return { conv, backend };
}

const ids = () => chat.state.messages.map((m) => m.id);

test('a long conversation opens with its last page, and older pages are prepended until none is left', async () => {
  const { conv, backend } = setup(250);
  await chat.open(conv.id);
  expect(ids()).toHaveLength(PAGE_SIZE);
  expect(ids()[0]).toBe('m150');
  expect(ids().at(-1)).toBe('m249');
  expect(chat.hasOlder).toBe(true);

  await chat.loadOlder();
  expect(ids()).toHaveLength(200);
  expect(ids().slice(0, 2)).toEqual(['m50', 'm51']);
  await chat.loadOlder();
  expect(ids()).toEqual(Array.from({ length: 250 }, (_, i) => `m${i}`));
  expect(chat.hasOlder).toBe(false);

  const asked = backend.callsTo('conversation_messages').length;
  await chat.loadOlder();
  expect(backend.callsTo('conversation_messages')).toHaveLength(asked);
  expect(backend.callsTo('conversation_messages')[1]).toEqual({ conversationId: conv.id, before: 'm150', limit: PAGE_SIZE });
});

test('reloading after older pages were read keeps as many messages on screen', async () => {
  const { conv } = setup(250);
  await chat.open(conv.id);
  await chat.loadOlder();
  await chat.reload();
  expect(ids()).toHaveLength(202);
  expect(ids().at(-1)).toBe('m249');
});

test('a short conversation is read whole and has nothing older', async () => {
  const { conv } = setup(7);
  await chat.open(conv.id);
  expect(ids()).toHaveLength(7);
  expect(chat.hasOlder).toBe(false);
});
