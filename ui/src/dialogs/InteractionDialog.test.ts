import { render, screen, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { emit } from '@tauri-apps/api/event';
import type { UnlistenFn } from '@tauri-apps/api/event';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { InteractionEvent } from '../bindings';
import { setLang } from '../i18n/index.svelte';
import { hostOf, listenInteractions } from '../lib/interactions.svelte';
import { installFakeBackend } from '../test/fakeBackend';
import { resetAppState } from '../test/reset';
import App from '../App.svelte';
import InteractionDialog from './InteractionDialog.svelte';

let unlisten: UnlistenFn | undefined;
beforeEach(() => resetAppState());
afterEach(() => {
  unlisten?.();
  unlisten = undefined;
});

async function setup() {
  const backend = installFakeBackend([], { extra: (cmd) => (cmd === 'answer_interaction' ? null : undefined) });
  unlisten = await listenInteractions();
  render(InteractionDialog);
  return { backend, user: userEvent.setup() };
}

const send = (event: InteractionEvent) => emit('mcp:interaction', event);

const sampling = (id = 'i1'): InteractionEvent => ({
  type: 'sampling_requested',
  id,
  server: 'everything',
  request: {
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'Summarise <b>this</b> file' }] },
      { role: 'assistant', content: [{ type: 'image', mime: 'image/png', data: 'AAAA' }] },
    ],
    systemPrompt: 'You are terse.',
    maxTokens: 100,
    temperature: null,
    stopSequences: [],
    modelHints: [],
  },
});

const form = (id = 'f1'): InteractionEvent => ({
  type: 'elicitation_requested',
  id,
  server: 'everything',
  message: 'Who are you?',
  requestedSchema: {
    type: 'object',
    properties: { name: { type: 'string', default: 'Ada' }, age: { type: 'integer', minimum: 0 } },
    required: ['name', 'age'],
  },
});

const url = (address: string, id = 'u1'): InteractionEvent => ({
  type: 'elicitation_url',
  id,
  server: 'payments',
  url: address,
  message: 'Sign in to continue',
});

const clientCall = (id: string, canAlways: boolean): InteractionEvent => ({
  type: 'client_call_requested',
  id,
  server: 'time',
  client: 'Cursor <img src=x>',
  tool: 'get_current_time',
  arguments: { timezone: 'Asia/Tokyo' },
  canAlways,
});

describe('server requests as dialogs', () => {
  test('another app’s call names the app, the tool and its arguments; each button is its own answer', async () => {
    const { backend, user } = await setup();
    await send(clientCall('c1', true));
    const dialog = screen.getByRole('dialog', { name: 'Cursor <img src=x> wants to run a tool' });
    expect(dialog).toHaveAccessibleDescription(/asks to run “get_current_time” of the server “time”/);
    expect(dialog.querySelector('img')).toBeNull();
    expect(within(dialog).getByTestId('client-call-arguments')).toHaveTextContent('"timezone": "Asia/Tokyo"');
    expect(within(dialog).getByRole('button', { name: 'Deny' })).toHaveFocus();
    await user.click(within(dialog).getByRole('button', { name: 'Always allow for Cursor <img src=x>' }));
    await send(clientCall('c2', false));
    const second = screen.getByRole('dialog');
    expect(within(second).queryByRole('button', { name: /Always allow/ })).toBeNull();
    await user.click(within(second).getByRole('button', { name: 'Allow once' }));
    await send(clientCall('c3', true));
    await user.keyboard('{Escape}');
    expect(backend.callsTo('answer_interaction')).toEqual([
      { id: 'c1', answer: { type: 'approve_always' } },
      { id: 'c2', answer: { type: 'approve' } },
      { id: 'c3', answer: { type: 'deny' } },
    ]);
  });


  test('a sampling request shows the server and the messages as text; Approve answers it', async () => {
    const { backend, user } = await setup();
    await send(sampling());
    const dialog = screen.getByRole('dialog', { name: 'everything wants to use your model' });
    expect(dialog).toHaveAttribute('aria-modal', 'true');
    expect(dialog).toHaveAccessibleDescription(/asks the sampling model/);
    const messages = within(dialog).getByTestId('sampling-messages');
    expect(messages).toHaveTextContent('Summarise <b>this</b> file');
    expect(messages.querySelector('b')).toBeNull();
    expect(messages).toHaveTextContent('[image, image/png]');
    expect(dialog).toHaveTextContent('You are terse.');
    expect(dialog.contains(document.activeElement)).toBe(true);

    await user.click(within(dialog).getByRole('button', { name: 'Approve' }));
    expect(backend.callsTo('answer_interaction')).toEqual([{ id: 'i1', answer: { type: 'approve' } }]);
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  test('after an answer, the next request’s dialog is ready to use and has the focus', async () => {
    const { user } = await setup();
    await send(sampling('i1'));
    await send(sampling('i2'));
    await user.click(screen.getByRole('button', { name: 'Approve' }));
    const deny = screen.getByRole('button', { name: 'Deny' });
    expect(deny).toBeEnabled();
    expect(deny).toHaveFocus();
  });

  test('when the last request is answered, focus returns to where it was', async () => {
    const { user } = await setup();
    const outside = document.createElement('button');
    document.body.append(outside);
    outside.focus();
    await send(sampling('i1'));
    await send(form('f2'));
    await user.keyboard('{Escape}');
    expect(screen.getByLabelText(/^name/)).toHaveFocus();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(outside).toHaveFocus();
    outside.remove();
  });

  test('Escape denies a sampling request', async () => {
    const { backend, user } = await setup();
    await send(sampling());
    await user.keyboard('{Escape}');
    expect(backend.callsTo('answer_interaction')).toEqual([{ id: 'i1', answer: { type: 'deny' } }]);
  });

  test('a form request is pre-filled with the schema’s defaults and sends what was entered', async () => {
    const { backend, user } = await setup();
    await send(form());
    const dialog = screen.getByRole('dialog', { name: 'everything asks for information' });
    expect(dialog).toHaveAccessibleDescription('Who are you?');
    expect(within(dialog).getByLabelText(/^name/)).toHaveValue('Ada');

    await user.click(within(dialog).getByRole('button', { name: 'Send' }));
    expect(backend.callsTo('answer_interaction')).toEqual([]);
    await user.type(within(dialog).getByLabelText(/^age/), '36');
    await user.click(within(dialog).getByRole('button', { name: 'Send' }));
    expect(backend.callsTo('answer_interaction')).toEqual([{ id: 'f1', answer: { type: 'accept', content: { name: 'Ada', age: 36 } } }]);
  });

  test('a form request can be declined, or cancelled with Escape', async () => {
    const { backend, user } = await setup();
    await send(form('f1'));
    await send(form('f2'));
    await user.click(screen.getByRole('button', { name: 'Decline' }));
    expect(screen.getByRole('dialog')).toBeInTheDocument();
    await user.keyboard('{Escape}');
    expect(backend.callsTo('answer_interaction')).toEqual([
      { id: 'f1', answer: { type: 'decline' } },
      { id: 'f2', answer: { type: 'cancel' } },
    ]);
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  test('a URL request shows the host apart from the URL and opens only on confirmation', async () => {
    const { backend, user } = await setup();
    await send(url('https://accounts.example.com.evil.test/login?next=https://accounts.example.com'));
    const dialog = screen.getByRole('dialog', { name: 'payments asks you to open a web page' });
    expect(within(dialog).getByTestId('url-host')).toHaveTextContent(/^accounts\.example\.com\.evil\.test$/);
    expect(within(dialog).getByTestId('url-full')).toHaveTextContent('https://accounts.example.com.evil.test/login?next=https://accounts.example.com');
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus();
    expect(backend.callsTo('answer_interaction')).toEqual([]);

    await user.click(within(dialog).getByRole('button', { name: 'Open accounts.example.com.evil.test' }));
    expect(backend.callsTo('answer_interaction')).toEqual([{ id: 'u1', answer: { type: 'accept' } }]);
  });

  test('a URL that is not http(s) cannot be opened from the dialog', async () => {
    const { user } = await setup();
    await send(url('javascript:alert(1)'));
    const dialog = screen.getByRole('dialog');
    expect(within(dialog).getByTestId('url-host')).toHaveTextContent('Not a web address');
    expect(within(dialog).queryByRole('button', { name: /^Open/ })).toBeNull();
    await user.click(within(dialog).getByRole('button', { name: 'Decline' }));
  });

  test('a closed event removes its dialog, and the next request shows', async () => {
    await setup();
    await send(sampling('i1'));
    await send(url('https://example.com/', 'u2'));
    await send({ type: 'closed', id: 'i1', server: 'everything', reason: 'timed_out' });
    expect(screen.getByRole('dialog', { name: 'payments asks you to open a web page' })).toBeInTheDocument();
    await send({ type: 'closed', id: 'u2', server: 'payments', reason: 'server_stopped' });
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  test('Tab and Shift+Tab stay inside the dialog', async () => {
    const { user } = await setup();
    await send(sampling());
    const dialog = screen.getByRole('dialog');
    const approve = within(dialog).getByRole('button', { name: 'Approve' });
    const deny = within(dialog).getByRole('button', { name: 'Deny' });
    approve.focus();
    await user.tab();
    expect(deny).toHaveFocus();
    deny.focus();
    await user.tab({ shift: true });
    expect(approve).toHaveFocus();
  });

  test('payloads of the wrong shape are ignored', async () => {
    await setup();
    await emit('mcp:interaction', { type: 'sampling_requested', id: 'x' });
    await emit('mcp:interaction', { type: 'something_else', id: 'y', server: 's' });
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  test('speaks Simplified Chinese', async () => {
    await setup();
    setLang('zh-CN');
    await send(sampling());
    expect(screen.getByRole('dialog', { name: 'everything 想使用你的模型' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: '批准' })).toBeInTheDocument();
  });
});

describe('the app', () => {
  test('listens to mcp:interaction from the start and shows the dialog', async () => {
    installFakeBackend();
    render(App);
    await screen.findByRole('navigation', { name: 'Conversations' });
    await send(form());
    expect(await screen.findByRole('dialog', { name: 'everything asks for information' })).toBeInTheDocument();
  });
});

describe('hostOf', () => {
  test('gives the host of http(s) URLs only, in its ASCII form', () => {
    expect(hostOf('https://例子.测试:8443/path')).toBe('xn--fsqu00a.xn--0zwm56d:8443');
    expect(hostOf('http://127.0.0.1:3000/x')).toBe('127.0.0.1:3000');
    expect(hostOf('file:///etc/passwd')).toBeNull();
    expect(hostOf('not a url')).toBeNull();
  });
});
