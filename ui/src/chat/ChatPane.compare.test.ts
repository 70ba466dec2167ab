import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, expect, test } from 'vitest';
import type { CompareBatch, Message } from '../bindings';
import App from '../App.svelte';
import { navigate, conversationHref } from '../lib/router.svelte';
import { conversation, installFakeBackend } from '../test/fakeBackend';
import { resetAppState } from '../test/reset';

beforeEach(() => resetAppState());

type Channel = { id: number };

/** Delivers batches on a channel the way Tauri does (indexed messages to its callback). */
function deliver(channel: Channel, batches: CompareBatch[], from: number) {
  const internals = (window as unknown as { __TAURI_INTERNALS__: { runCallback: (id: number, data: unknown) => void } })
    .__TAURI_INTERNALS__;
  batches.forEach((message, i) => internals.runCallback(channel.id, { index: from + i, message }));
}

const base = { parentId: null, usage: null, error: null, createdAt: 1, updatedAt: 1 } as const;
const view = (id: string, name: string) => ({
  provider: { id, name, settings: { toolModes: {}, strictTools: false, defaultModel: `${id}-default` } },
  key: { source: null, masked: null },
});

function setup() {
  const conv = conversation({ title: 'Capitals', providerId: 'pa', model: 'model-a' });
  let channel: Channel | null = null;
  const messages = new Map<string, Message[]>([[conv.id, []]]);
  const backend = installFakeBackend([conv], {
    extra: (cmd, args) => {
      switch (cmd) {
        case 'list_providers':
          return [view('pa', 'Alpha'), view('pb', 'Beta')];
        case 'provider_models':
          return [];
        case 'conversation_messages':
          return messages.get(String(args.conversationId)) ?? [];
        case 'message_siblings':
          return [args.messageId];
        case 'compare_message':
          channel = args.onEvent as Channel;
          return null;
        case 'send_message':
          return null;
        case 'switch_branch':
          return conv;
        case 'tool_costs':
          return [];
        case 'answer_approval':
        case 'stop_generation':
          return true;
        default:
          return undefined;
      }
    },
  });
  navigate(conversationHref(conv.id));
  return { conv, backend, messages, channel: () => channel! };
}

test('a message goes to two models at once, their answers stream side by side with their own approval, and one is kept', async () => {
  const { conv, backend, messages, channel } = setup();
  const user = userEvent.setup();
  render(App);
  await user.click(await screen.findByTestId('compare-button'));
  const picker = screen.getByTestId('compare-picker');
  expect(picker).toHaveTextContent('Alpha / model-a');
  await user.selectOptions(within(picker).getByTestId('compare-provider'), 'pb');
  await user.type(within(picker).getByTestId('compare-model'), 'model-b');
  await user.click(within(picker).getByTestId('compare-add'));
  expect(within(picker).getAllByTestId('compare-chip')).toHaveLength(1);
  expect(screen.getByTestId('compare-button')).toHaveTextContent('Compare: 2 models');

  const box = screen.getByTestId('composer');
  await user.type(box, 'Capital of France?');
  await user.keyboard('{Enter}');
  await waitFor(() => expect(backend.callsTo('compare_message')).toHaveLength(1));
  expect(backend.callsTo('compare_message')[0]).toMatchObject({
    conversationId: conv.id,
    text: 'Capital of France?',
    models: [
      { providerId: 'pa', model: 'model-a' },
      { providerId: 'pb', model: 'model-b' },
    ],
  });
  expect(backend.callsTo('send_message')).toHaveLength(0);

  const call = { id: 'call_b', server: 'maps', tool: 'lookup', arguments: { country: 'France' } };
  deliver(
    channel(),
    [
      {
        lane: 0,
        events: [
          { type: 'titled', title: 'Capital of France' },
          { type: 'started', conversation_id: conv.id, user_message_id: 'u1' },
          { type: 'message_started', message_id: 'a1', model: 'model-a', step: 1 },
          { type: 'text_delta', message_id: 'a1', text: 'Paris, says A.' },
          { type: 'usage', message_id: 'a1', usage: { inputTokens: 10, outputTokens: 4 } },
        ],
      },
      {
        lane: 1,
        events: [
          { type: 'started', conversation_id: conv.id, user_message_id: 'u1' },
          { type: 'message_started', message_id: 'b1', model: 'model-b', step: 1 },
          { type: 'tool_call_proposed', message_id: 'b1', call },
          { type: 'approval_needed', approval_id: 'ap_b', call },
        ],
      },
    ],
    0,
  );
  const lanes = await screen.findAllByTestId('compare-lane');
  expect(lanes).toHaveLength(2);
  expect(screen.getByTestId('compare-prompt')).toHaveTextContent('Capital of France?');
  // A title a lane hears names the conversation.
  expect(screen.getByTestId('chat-title')).toHaveTextContent('Capital of France');
  expect(within(lanes[0]!).getByTestId('compare-model')).toHaveTextContent('Alpha / model-a');
  expect(within(lanes[1]!).getByTestId('compare-model')).toHaveTextContent('Beta / model-b');
  await waitFor(() => expect(within(lanes[0]!).getByTestId('message-text')).toHaveTextContent('Paris, says A.'));
  expect(within(lanes[0]!).getByTestId('compare-stats')).toHaveTextContent('4 tokens');
  expect(within(lanes[0]!).getByTestId('compare-stats')).toHaveTextContent(/first token \d+\.\d\d s/);
  expect(screen.getByTestId('stop-button')).toBeInTheDocument();
  expect(screen.getByTestId('send-button')).toBeDisabled();

  const card = within(lanes[1]!).getByTestId('tool-call-card');
  expect(card).toHaveAttribute('data-state', 'pending-approval');
  await user.click(within(card).getByRole('button', { name: 'Allow once' }));
  await waitFor(() => expect(backend.callsTo('answer_approval')).toEqual([{ approvalId: 'ap_b', answer: 'allow_once' }]));

  deliver(
    channel(),
    [
      { lane: 0, events: [{ type: 'finished', reason: 'done', head_id: 'a1' }] },
      {
        lane: 1,
        events: [
          { type: 'message_started', message_id: 'b2', model: 'model-b', step: 2 },
          { type: 'text_delta', message_id: 'b2', text: 'Paris, says B.' },
          { type: 'finished', reason: 'done', head_id: 'b2' },
        ],
      },
    ],
    2,
  );
  await waitFor(() => expect(screen.getAllByTestId('compare-keep')).toHaveLength(2));
  expect(screen.queryByTestId('stop-button')).toBeNull();
  // Ended answers no longer stream (no cursor, Markdown built in full).
  for (const markdown of screen.getAllByTestId('markdown')) expect(markdown).toHaveAttribute('aria-busy', 'false');

  messages.set(conv.id, [
    { ...base, model: null, id: 'u1', conversationId: conv.id, role: 'user', status: 'complete', content: [{ type: 'text', text: 'Capital of France?' }] },
    { ...base, model: 'model-b', id: 'b2', conversationId: conv.id, role: 'assistant', status: 'complete', content: [{ type: 'text', text: 'Paris, says B.' }] },
  ]);
  await user.click(screen.getAllByTestId('compare-keep')[1]!);
  await waitFor(() => expect(backend.callsTo('switch_branch')).toEqual([{ messageId: 'b2' }]));
  await waitFor(() => expect(screen.queryByTestId('compare')).toBeNull());
  await waitFor(() => expect(screen.getAllByTestId('message')).toHaveLength(2));
  expect(screen.getAllByTestId('message-text')[1]).toHaveTextContent('Paris, says B.');
});

test('models @mentioned in the message answer beside the chat\'s own, and the mentions leave the text', async () => {
  const { conv, backend } = setup();
  const user = userEvent.setup();
  render(App);
  const box = await screen.findByTestId('composer');
  await waitFor(() => expect(screen.getByTestId('compare-button')).toBeInTheDocument());
  await user.type(box, '@beta/model-b @nobody/x Capital of France?');
  await user.keyboard('{Enter}');
  await waitFor(() => expect(backend.callsTo('compare_message')).toHaveLength(1));
  expect(backend.callsTo('compare_message')[0]).toMatchObject({
    conversationId: conv.id,
    text: '@nobody/x Capital of France?',
    models: [
      { providerId: 'pa', model: 'model-a' },
      { providerId: 'pb', model: 'model-b' },
    ],
  });
});

test('a message sent after an ended comparison takes it off the screen and goes to the chat\'s own model', async () => {
  const { conv, backend, channel } = setup();
  const user = userEvent.setup();
  render(App);
  const box = await screen.findByTestId('composer');
  await waitFor(() => expect(screen.getByTestId('compare-button')).toBeInTheDocument());
  await user.type(box, '@beta/model-b Hello');
  await user.keyboard('{Enter}');
  await waitFor(() => expect(backend.callsTo('compare_message')).toHaveLength(1));
  deliver(
    channel(),
    [0, 1].map((lane) => ({
      lane,
      events: [
        { type: 'started', conversation_id: conv.id, user_message_id: 'u1' },
        { type: 'message_started', message_id: `m${lane}`, model: 'x', step: 1 },
        { type: 'text_delta', message_id: `m${lane}`, text: 'Hi.' },
        { type: 'finished', reason: 'done', head_id: `m${lane}` },
      ],
    })),
    0,
  );
  await waitFor(() => expect(screen.getAllByTestId('compare-keep')).toHaveLength(2));
  await user.type(box, 'And then?');
  await user.keyboard('{Enter}');
  await waitFor(() => expect(backend.callsTo('send_message')).toHaveLength(1));
  expect(screen.queryByTestId('compare')).toBeNull();
});

test('a compare that fails to start says why and leaves no lanes', async () => {
  const { backend } = setup();
  backend.fail('compare_message', { kind: 'busy', message: 'a turn is already running in this conversation' });
  const user = userEvent.setup();
  render(App);
  await user.click(await screen.findByTestId('compare-button'));
  await user.type(screen.getByTestId('compare-model'), 'model-b');
  await user.click(screen.getByTestId('compare-add'));
  await user.type(screen.getByTestId('composer'), 'Hi');
  await user.keyboard('{Enter}');
  expect(await screen.findByRole('alert')).toHaveTextContent(/a turn is already running/i);
  expect(screen.queryByTestId('compare')).toBeNull();
});
