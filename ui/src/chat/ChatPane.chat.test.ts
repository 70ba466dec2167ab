import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, expect, test } from 'vitest';
import type { ChatEvent, Message } from '../bindings';
import App from '../App.svelte';
import { navigate, conversationHref } from '../lib/router.svelte';
import { conversation, installFakeBackend } from '../test/fakeBackend';
import { resetAppState } from '../test/reset';
import { chat as session } from '../lib/chat.svelte';

beforeEach(() => resetAppState());

type Channel = { id: number };

/** Delivers batches on a channel the way Tauri does (indexed messages to its callback). */
function deliver(channel: Channel, batches: ChatEvent[][], from = 0) {
  const internals = (window as unknown as { __TAURI_INTERNALS__: { runCallback: (id: number, data: unknown) => void } })
    .__TAURI_INTERNALS__;
  batches.forEach((message, i) => internals.runCallback(channel.id, { index: from + i, message }));
}

const base = { parentId: null, model: null, usage: null, error: null, createdAt: 1, updatedAt: 1 } as const;

function setup(stored: Message[] = [], siblingsAnswered: Promise<void> = Promise.resolve()) {
  const conv = conversation({ title: 'Weather' });
  let channel: Channel | null = null;
  const messages = new Map<string, Message[]>([[conv.id, stored]]);
  const backend = installFakeBackend([conv], { extra: (cmd, args) => {
    switch (cmd) {
      case 'list_providers':
        return [
          {
            provider: { id: 'p', name: 'fake', settings: { toolModes: {}, strictTools: false } },
            key: { source: null, masked: null },
          },
        ];
      case 'conversation_messages':
        return messages.get(String(args.conversationId)) ?? [];
      case 'message_siblings':
        return siblingsAnswered.then(() => [args.messageId]);
      case 'send_message':
        channel = args.onEvent as Channel;
        return null;
      case 'tool_costs':
        return [];
      case 'answer_approval':
      case 'stop_generation':
        return true;
      default:
        return undefined;
    }
  } });
  navigate(conversationHref(conv.id));
  return { conv, backend, messages, channel: () => channel! };
}

test('a turn streams text, asks approval inline, shows the tool result and then the stored branch', async () => {
  const { conv, backend, messages, channel } = setup();
  const user = userEvent.setup();
  render(App);
  const box = await screen.findByTestId('composer');
  await waitFor(() => expect(screen.getByTestId('send-button')).toBeDisabled());
  await user.type(box, 'Weather in California?');
  await user.keyboard('{Enter}');
  await waitFor(() => expect(backend.callsTo('send_message')).toHaveLength(1));
  expect(backend.callsTo('send_message')[0]).toMatchObject({ conversationId: conv.id, text: 'Weather in California?' });

  const call = { id: 'call_1', server: 'weather', tool: 'get_weather', arguments: { location: 'California' } };
  deliver(channel(), [
    [
      { type: 'started', conversation_id: conv.id, user_message_id: 'u1' },
      { type: 'message_started', message_id: 'a1', model: 'qwen3', step: 1 },
      { type: 'text_delta', message_id: 'a1', text: 'Checking <img src=x onerror=alert(1)>' },
      { type: 'tool_call_proposed', message_id: 'a1', call },
      { type: 'approval_needed', approval_id: 'ap1', call },
    ],
  ]);
  const card = await screen.findByTestId('tool-call-card');
  expect(card).toHaveAttribute('data-state', 'pending-approval');
  expect(within(card).getByTestId('tool-call-arguments')).toBeVisible();
  expect(within(card).getByTestId('tool-call-arguments').textContent).toBe('{\n  "location": "California"\n}');
  await waitFor(() => expect(screen.getAllByTestId('message-text')[1]).toHaveTextContent('Checking'));
  expect(document.querySelector('[onerror]')).toBeNull();
  expect(document.querySelector('img[src]')).toBeNull();
  expect(screen.getByTestId('stop-button')).toBeInTheDocument();

  await user.click(within(card).getByRole('button', { name: 'Allow once' }));
  await waitFor(() => expect(backend.callsTo('answer_approval')).toEqual([{ approvalId: 'ap1', answer: 'allow_once' }]));

  deliver(
    channel(),
    [
      [
        { type: 'tool_started', call_id: 'call_1' },
        {
          type: 'tool_result',
          message_id: 't1',
          call_id: 'call_1',
          content: { content: [{ type: 'text', text: "It's always raining in California" }], structured: null, is_error: false },
          is_error: false,
        },
        { type: 'message_started', message_id: 'a2', model: 'qwen3', step: 2 },
        { type: 'text_delta', message_id: 'a2', text: 'It is raining.' },
      ],
    ],
    1,
  );
  expect(await screen.findByTestId('tool-call-result')).toHaveTextContent("It's always raining in California");
  expect(screen.getByTestId('tool-call-card')).toHaveAttribute('data-state', 'done');

  messages.set(conv.id, [
    { ...base, id: 'u1', conversationId: conv.id, role: 'user', status: 'complete', content: [{ type: 'text', text: 'Weather in California?' }] },
    { ...base, id: 'a2', conversationId: conv.id, role: 'assistant', status: 'complete', content: [{ type: 'text', text: 'It is raining.' }] },
  ]);
  deliver(channel(), [[{ type: 'finished', reason: 'done', head_id: 'a2' }]], 2);
  await waitFor(() => expect(screen.queryByTestId('stop-button')).toBeNull());
  await waitFor(() => expect(screen.getAllByTestId('message')).toHaveLength(2));
  expect(screen.getByTestId('regenerate')).toBeInTheDocument();
});

test('Escape stops the running turn and an error event is shown translated by kind', async () => {
  const { conv, backend, channel } = setup();
  const user = userEvent.setup();
  render(App);
  const box = await screen.findByTestId('composer');
  await waitFor(() => expect(screen.getByTestId('composer-hint')).toHaveTextContent('Enter to send'));
  await user.type(box, 'hi{Enter}');
  await waitFor(() => expect(backend.callsTo('send_message')).toHaveLength(1));
  deliver(channel(), [[{ type: 'started', conversation_id: conv.id, user_message_id: 'u1' }]]);
  await screen.findByTestId('stop-button');
  await user.keyboard('{Escape}');
  await waitFor(() => expect(backend.callsTo('stop_generation')).toEqual([{ conversationId: conv.id }]));
  deliver(
    channel(),
    [
      [
        { type: 'error', kind: 'provider_unavailable', message: 'connection refused' },
        { type: 'finished', reason: 'error', head_id: 'u1' },
      ],
    ],
    1,
  );
  expect(await screen.findByTestId('turn-error')).toHaveTextContent('The provider could not be reached');
});

test('a title the engine gives the conversation during a turn shows in the header and the sidebar', async () => {
  const { conv, backend, channel } = setup();
  const user = userEvent.setup();
  render(App);
  await user.type(await screen.findByTestId('composer'), 'Weather in California?');
  await waitFor(() => expect(screen.getByTestId('send-button')).toBeEnabled());
  await user.keyboard('{Enter}');
  await waitFor(() => expect(backend.callsTo('send_message')).toHaveLength(1));

  deliver(channel(), [
    [
      { type: 'started', conversation_id: conv.id, user_message_id: 'u1' },
      { type: 'titled', title: 'California rain' },
    ],
  ]);

  await waitFor(() => expect(screen.getByTestId('chat-title')).toHaveTextContent('California rain'));
  expect(within(screen.getByRole('complementary')).getByText('California rain')).toBeInTheDocument();
});

const text = (t: string) => [{ type: 'text' as const, text: t }];
const msg = (id: string, role: 'user' | 'assistant', parentId: string | null) =>
  ({ ...base, id, parentId, conversationId: '', role, status: 'complete', content: text(id) }) as Message;
const stored = () => [msg('u1', 'user', null), msg('a1', 'assistant', 'u1'), msg('u2', 'user', 'a1'), msg('a2', 'assistant', 'u2')];

/** Sends a message whose turn stores u3 and a3 and ends with `events` delivered. */
async function turnStoringU3A3({ conv, backend, messages, channel }: ReturnType<typeof setup>, events: ChatEvent[]) {
  const user = userEvent.setup();
  await user.type(await screen.findByTestId('composer'), 'and tomorrow?');
  await user.keyboard('{Enter}');
  await waitFor(() => expect(backend.callsTo('send_message')).toHaveLength(1));
  messages.set(conv.id, [...messages.get(conv.id)!, { ...msg('u3', 'user', 'a2'), conversationId: conv.id }, { ...msg('a3', 'assistant', 'u3'), conversationId: conv.id }]);
  deliver(channel(), [events]);
  await waitFor(() => expect(screen.getAllByTestId('message')).toHaveLength(6));
}

test('after a turn only the new messages are asked for their alternatives', async () => {
  const chat = setup(stored());
  chat.messages.set(chat.conv.id, stored().map((m) => ({ ...m, conversationId: chat.conv.id })));
  render(App);
  await waitFor(() => expect(screen.getAllByTestId('message')).toHaveLength(4));
  await waitFor(() => expect(chat.backend.callsTo('message_siblings')).toHaveLength(4));

  await turnStoringU3A3(chat, [
    { type: 'started', conversation_id: chat.conv.id, user_message_id: 'u3' },
    { type: 'message_started', message_id: 'a3', model: 'qwen3', step: 1 },
    { type: 'text_delta', message_id: 'a3', text: 'a3' },
    { type: 'finished', reason: 'done', head_id: 'a3' },
  ]);
  await waitFor(() => expect(chat.backend.callsTo('message_siblings')).toHaveLength(6));
  expect(chat.backend.callsTo('message_siblings').slice(4)).toEqual([{ messageId: 'u3' }, { messageId: 'a3' }]);
});

test('a message whose alternatives are being asked for is not asked again before the answer comes', async () => {
  let answer = () => {};
  const answered = new Promise<void>((resolve) => (answer = resolve));
  const chat = setup(stored(), answered);
  chat.messages.set(chat.conv.id, stored().map((m) => ({ ...m, conversationId: chat.conv.id })));
  render(App);
  await waitFor(() => expect(chat.backend.callsTo('message_siblings')).toHaveLength(4));

  // A turn runs and ends while the four answers are still pending: the branch is read again.
  await turnStoringU3A3(chat, [
    { type: 'started', conversation_id: chat.conv.id, user_message_id: 'u3' },
    { type: 'message_started', message_id: 'a3', model: 'qwen3', step: 1 },
    { type: 'finished', reason: 'done', head_id: 'a3' },
  ]);
  await waitFor(() => expect(chat.backend.callsTo('message_siblings')).toHaveLength(6));
  expect(chat.backend.callsTo('message_siblings').slice(4)).toEqual([{ messageId: 'u3' }, { messageId: 'a3' }]);

  // Once the answers come nothing more is asked.
  answer();
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(chat.backend.callsTo('message_siblings')).toHaveLength(6);
});

test('a message that leaves the branch is asked again when it comes back, and the ones that stayed are not', async () => {
  const chat = setup(stored());
  const withConv = (list: Message[]) => list.map((m) => ({ ...m, conversationId: chat.conv.id }));
  chat.messages.set(chat.conv.id, withConv(stored()));
  render(App);
  await waitFor(() => expect(chat.backend.callsTo('message_siblings')).toHaveLength(4));

  // A regenerated answer replaces a2 on the branch: only the new answer is asked about.
  const [u1, a1, u2, a2] = stored();
  chat.messages.set(chat.conv.id, withConv([u1!, a1!, u2!, msg('a2b', 'assistant', 'u2')]));
  await session.reload();
  await waitFor(() => expect(chat.backend.callsTo('message_siblings')).toHaveLength(5));
  expect(chat.backend.callsTo('message_siblings')[4]).toEqual({ messageId: 'a2b' });

  // Switching back to a2: what was read of it was forgotten when it left, so it is asked again.
  chat.messages.set(chat.conv.id, withConv([u1!, a1!, u2!, a2!]));
  await session.reload();
  await waitFor(() => expect(chat.backend.callsTo('message_siblings')).toHaveLength(6));
  expect(chat.backend.callsTo('message_siblings')[5]).toEqual({ messageId: 'a2' });
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(chat.backend.callsTo('message_siblings')).toHaveLength(6);
});
