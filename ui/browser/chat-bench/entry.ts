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
let compareChannel: Channel | null = null;
let compareIndex = 0;

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
      case 'conversation_messages': {
        // Pages like the engine: the last `limit` messages, or those before `before`.
        const all = stored.get(String(args.conversationId)) ?? [];
        const end = args.before ? all.findIndex((m) => m.id === args.before) : all.length;
        const limit = (args.limit as number | undefined) ?? end;
        return all.slice(Math.max(0, end - limit), end);
      }
      case 'message_siblings':
        return [args.messageId];
      case 'send_message':
        channel = args.onEvent as Channel;
        index = 0;
        if (autoAnswer) answerSoon(String(args.conversationId), String(args.text));
        return null;
      case 'compare_message':
        compareChannel = args.onEvent as Channel;
        compareIndex = 0;
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

let autoAnswer = false;
let turn = 0;

/** Answers a message like the engine would: a short streamed answer, then the stored branch. */
function answerSoon(conversationId: string, text: string): void {
  const n = turn++;
  const at = Date.now();
  const base = { conversationId, model: null, usage: null, error: null, createdAt: at, updatedAt: at, status: 'complete' as const };
  const history = stored.get(conversationId) ?? [];
  const user: Message = { ...base, id: `u${n}`, parentId: history.at(-1)?.id ?? null, role: 'user', content: [{ type: 'text', text }] };
  const words = 'Here is a **short** answer with `code`, a list and a table.\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nAnd a closing paragraph.'.split(/(?<= )/);
  const answer: Message = { ...base, id: `a${n}`, parentId: user.id, role: 'assistant', model: 'fake-model', content: [{ type: 'text', text: words.join('') }] };
  setTimeout(() => {
    deliver([
      { type: 'started', conversation_id: conversationId, user_message_id: user.id },
      { type: 'message_started', message_id: answer.id, model: 'fake-model', step: 1 },
    ]);
    for (let i = 0; i < words.length; i += 4) deliver([{ type: 'text_delta', message_id: answer.id, text: words.slice(i, i + 4).join('') }]);
    stored.set(conversationId, [...history, user, answer]);
    deliver([{ type: 'finished', reason: 'done', head_id: answer.id }]);
  }, 5);
}

/** Hands one batch of events to the app as Tauri's channel would. */
function deliver(batch: ChatEvent[]): void {
  if (!channel) throw new Error('no turn is running');
  const internals = (window as unknown as { __TAURI_INTERNALS__: Internals }).__TAURI_INTERNALS__;
  internals.runCallback(channel.id, { index: index++, message: batch });
}

/** Hands one batch of a compared model's events to the app, tagged with its lane. */
function deliverLane(lane: number, events: ChatEvent[]): void {
  if (!compareChannel) throw new Error('no compare is running');
  const internals = (window as unknown as { __TAURI_INTERNALS__: Internals }).__TAURI_INTERNALS__;
  internals.runCallback(compareChannel.id, { index: compareIndex++, message: { lane, events } });
}

Object.assign(window, {
  chatBench: {
    deliver,
    deliverLane,
    hasChannel: () => channel !== null,
    hasCompare: () => compareChannel !== null,
    answerAutomatically: () => (autoAnswer = true),
  },
});

void import('../../src/main');
