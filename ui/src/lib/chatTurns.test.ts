import { beforeEach, expect, test } from 'vitest';
import type { ChatEvent } from '../bindings';
import { conversation, installFakeBackend } from '../test/fakeBackend';
import { resetAppState } from '../test/reset';
import { chat } from './chat.svelte';

beforeEach(() => resetAppState());

type Channel = { id: number };

/** Delivers one batch on a channel the way Tauri does. */
function deliver(channel: Channel, batch: ChatEvent[], index: number) {
  const internals = (window as unknown as { __TAURI_INTERNALS__: { runCallback: (id: number, data: unknown) => void } })
    .__TAURI_INTERNALS__;
  internals.runCallback(channel.id, { index, message: batch });
}

function setup() {
  const a = conversation({ title: 'A' });
  const b = conversation({ title: 'B' });
  let channel: Channel | null = null;
  installFakeBackend([a, b], {
    extra: (cmd, args) => {
      switch (cmd) {
        case 'conversation_messages':
          return [];
        case 'send_message':
          channel = args.onEvent as Channel;
          return null;
        default:
          return undefined;
      }
    },
  });
  return { a, b, channel: () => channel! };
}

test('a chat opened again while its turn runs shows the turn running, until the turn finishes', async () => {
  const { a, b, channel } = setup();
  await chat.open(a.id);
  await chat.send('hello');
  expect(chat.state.running).toBe(true);

  await chat.open(b.id);
  expect(chat.state.running).toBe(false);
  await chat.open(a.id);
  expect(chat.state.running).toBe(true);

  // The turn ends while another chat is on screen: opened again, it is not running.
  await chat.open(b.id);
  deliver(channel(), [{ type: 'finished', reason: 'done', head_id: 'x' }], 0);
  expect(chat.state.running).toBe(false);
  await chat.open(a.id);
  expect(chat.state.running).toBe(false);
});
