// Browser entry of the chat benchmark (see ../chat-perf.mjs): the real app (main.ts) over the
// fake backend, seeded with a 2,000-message conversation and an empty one, plus hooks the
// driver calls to stream a turn into the shown conversation the way the engine's channel does.
import type { ChatEvent, Message } from '../../src/bindings';
import { conversation, installFakeBackend } from '../../src/test/fakeBackend';
import { longConversation } from './data';

type Channel = { id: number };
type Internals = { runCallback: (id: number, data: unknown) => void };

const long = conversation({ id: 'long', title: 'Two thousand messages', updatedAt: Date.now() - 1000 });
const fresh = [1, 2, 3, 4, 5, 6].map((n) => conversation({ id: `fresh-${n}`, title: `Stream ${n}`, updatedAt: Date.now() + n }));
const stored = new Map<string, Message[]>([['long', longConversation('long', 2000)]]);
let channel: Channel | null = null;
let index = 0;

const provider = {
  provider: { id: 'p', name: 'fake', settings: { toolModes: {}, strictTools: false } },
  key: { source: null, masked: null },
};

installFakeBackend([long, ...fresh], {
  providers: [provider as never],
  extra: (cmd, args) => {
    switch (cmd) {
      case 'list_providers':
        return [provider];
      case 'conversation_messages':
        return stored.get(String(args.conversationId)) ?? [];
      case 'message_siblings':
        return [args.messageId];
      case 'send_message':
        channel = args.onEvent as Channel;
        index = 0;
        return null;
      case 'tool_costs':
      case 'list_servers':
      case 'server_states':
      case 'list_presets':
        return [];
      case 'provider_models':
        return [];
      default:
        return undefined;
    }
  },
});

/** Hands one batch of events to the app as Tauri's channel would. */
function deliver(batch: ChatEvent[]): void {
  if (!channel) throw new Error('no turn is running');
  const internals = (window as unknown as { __TAURI_INTERNALS__: Internals }).__TAURI_INTERNALS__;
  internals.runCallback(channel.id, { index: index++, message: batch });
}

Object.assign(window, { chatBench: { deliver, hasChannel: () => channel !== null } });

void import('../../src/main');
