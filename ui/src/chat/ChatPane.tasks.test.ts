import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, expect, test } from 'vitest';
import type { ChatEvent } from '../bindings';
import App from '../App.svelte';
import { navigate, conversationHref } from '../lib/router.svelte';
import { conversation, installFakeBackend } from '../test/fakeBackend';
import { resetAppState } from '../test/reset';

beforeEach(() => resetAppState());

type Channel = { id: number };

/** Delivers batches on a channel the way Tauri does (indexed messages to its callback). */
function deliver(channel: Channel, batches: ChatEvent[][], from = 0) {
  const internals = (window as unknown as { __TAURI_INTERNALS__: { runCallback: (id: number, data: unknown) => void } })
    .__TAURI_INTERNALS__;
  batches.forEach((message, i) => internals.runCallback(channel.id, { index: from + i, message }));
}

function setup() {
  const conv = conversation({ title: 'Research' });
  let channel: Channel | null = null;
  const backend = installFakeBackend([conv], {
    extra: (cmd, args) => {
      switch (cmd) {
        case 'list_providers':
          return [
            {
              provider: { id: 'p', name: 'fake', settings: { toolModes: {}, strictTools: false } },
              key: { source: null, masked: null },
            },
          ];
        case 'conversation_messages':
          return [];
        case 'message_siblings':
          return [args.messageId];
        case 'send_message':
          channel = args.onEvent as Channel;
          return null;
        case 'tool_costs':
          return [];
        case 'cancel_task':
          return null;
        default:
          return undefined;
      }
    },
  });
  navigate(conversationHref(conv.id));
  return { conv, backend, channel: () => channel! };
}

test('a tool call that runs as a task shows its status in the chat and its cancel button cancels that call', async () => {
  const { conv, backend, channel } = setup();
  const user = userEvent.setup();
  render(App);
  const box = await screen.findByTestId('composer');
  await user.type(box, 'Research tides{Enter}');
  await waitFor(() => expect(backend.callsTo('send_message')).toHaveLength(1));

  const call = { id: 'call_7', server: 'everything', tool: 'simulate-research-query', arguments: { topic: 'tides' } };
  deliver(channel(), [
    [
      { type: 'started', conversation_id: conv.id, user_message_id: 'u1' },
      { type: 'message_started', message_id: 'a1', model: 'qwen3', step: 1 },
      { type: 'tool_call_proposed', message_id: 'a1', call },
      { type: 'tool_started', call_id: 'call_7' },
      { type: 'tool_task', call_id: 'call_7', task_id: 't1', status: 'working', message: 'Analyzing content...' },
    ],
  ]);
  const card = await screen.findByTestId('tool-call-card');
  expect(await within(card).findByTestId('tool-task-status')).toHaveTextContent('Working');
  expect(within(card).getByTestId('tool-task-message')).toHaveTextContent('Analyzing content...');

  await user.click(within(card).getByRole('button', { name: 'Cancel task' }));
  await waitFor(() => expect(backend.callsTo('cancel_task')).toEqual([{ callId: 'call_7' }]));

  deliver(
    channel(),
    [
      [
        { type: 'tool_task', call_id: 'call_7', task_id: 't1', status: 'cancelled', message: null },
        {
          type: 'tool_result',
          message_id: 'm1',
          call_id: 'call_7',
          content: { content: [{ type: 'text', text: 'The user cancelled this task.' }], structured: null, is_error: true },
          is_error: true,
        },
      ],
    ],
    1,
  );
  await waitFor(() => expect(within(card).getByTestId('tool-task-status')).toHaveTextContent('Cancelled'));
  expect(within(card).queryByRole('button', { name: 'Cancel task' })).toBeNull();
  expect(within(card).getByTestId('tool-call-result')).toHaveTextContent('The user cancelled this task.');
  expect(within(card).getByTestId('tool-call-state')).toHaveTextContent('Failed');
});
