import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, expect, test } from 'vitest';
import App from '../App.svelte';
import type { ChatEvent, Message } from '../bindings';
import { conversationHref, navigate } from '../lib/router.svelte';
import { conversation, installFakeBackend } from '../test/fakeBackend';
import { resetAppState } from '../test/reset';

beforeEach(() => resetAppState());

type Channel = { id: number };

function deliver(channel: Channel, batches: ChatEvent[][]) {
  const internals = (window as unknown as { __TAURI_INTERNALS__: { runCallback: (id: number, data: unknown) => void } })
    .__TAURI_INTERNALS__;
  batches.forEach((message, index) => internals.runCallback(channel.id, { index, message }));
}

const NOTES = { uri: 'file:///notes.md', name: 'notes.md', title: 'Notes', description: null, mime: 'text/markdown', size: null };

function setup() {
  // The conversation lends only "docs" its tools; "everything" runs too, "off" is stopped.
  const conv = conversation({ title: 'Notes', settings: { servers: ['docs', 'off'] } });
  let channel: Channel | null = null;
  const stored: Message[] = [];
  const backend = installFakeBackend([conv], {
    extra: (cmd, args) => {
      switch (cmd) {
        case 'list_providers':
          return [{ provider: { id: 'p', name: 'fake', settings: { toolModes: {}, strictTools: false } }, key: { source: null, masked: null } }];
        case 'conversation_messages':
          return stored;
        case 'message_siblings':
          return [args.messageId];
        case 'tool_costs':
          return [];
        case 'server_states':
          return [
            { name: 'docs', state: { type: 'ready' } },
            { name: 'everything', state: { type: 'ready' } },
            { name: 'off', state: { type: 'stopped' } },
          ];
        case 'server_resources':
          return args.name === 'docs' ? [NOTES] : [];
        case 'server_resource_templates':
          return [];
        case 'server_prompts':
          return [];
        case 'read_resource':
          return [{ uri: args.uri, mime: 'text/markdown', body: { kind: 'text', value: '# Plan' } }];
        case 'send_message':
          channel = args.onEvent as Channel;
          return null;
        default:
          return undefined;
      }
    },
  });
  navigate(conversationHref(conv.id));
  return { conv, backend, channel: () => channel! };
}

test('a resource attached in the composer is sent with the message and shown as a chip on it', async () => {
  const { conv, backend, channel } = setup();
  const user = userEvent.setup();
  render(App);
  await waitFor(() => expect(screen.getByTestId('composer-hint')).toHaveTextContent('Enter to send'));
  await user.click(screen.getByRole('button', { name: 'Attach a resource' }));
  const picker = await screen.findByRole('dialog', { name: 'Attach resources' });
  await user.click(await within(picker).findByRole('button', { name: /Notes/ }));
  await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  expect(backend.callsTo('server_resources')).toEqual([{ name: 'docs' }]);

  await user.type(screen.getByTestId('composer'), 'Summarize{Enter}');
  await waitFor(() => expect(backend.callsTo('send_message')).toHaveLength(1));
  const attachment = { server: 'docs', uri: 'file:///notes.md', name: 'Notes', mimeType: 'text/markdown', body: { kind: 'text', value: '# Plan' } };
  expect(backend.callsTo('send_message')[0]).toMatchObject({ conversationId: conv.id, text: 'Summarize', attachments: [attachment] });

  deliver(channel(), [[{ type: 'started', conversation_id: conv.id, user_message_id: 'u1' }]]);
  const message = await screen.findByTestId('message');
  expect(message).toHaveTextContent('Summarize');
  expect(within(message).getByTestId('attachment-chip')).toHaveTextContent('Notes');
  expect(screen.getAllByTestId('attachment-chip')).toHaveLength(1);
});

test('a message without attachments is sent exactly as before', async () => {
  const { backend } = setup();
  const user = userEvent.setup();
  render(App);
  await waitFor(() => expect(screen.getByTestId('composer-hint')).toHaveTextContent('Enter to send'));
  await user.type(screen.getByTestId('composer'), 'hi{Enter}');
  await waitFor(() => expect(backend.callsTo('send_message')).toHaveLength(1));
  expect(Object.keys(backend.callsTo('send_message')[0]!).sort()).toEqual(['conversationId', 'onEvent', 'text']);
});
