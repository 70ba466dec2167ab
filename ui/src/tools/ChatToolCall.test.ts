import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, expect, test, vi } from 'vitest';
import type { AppView } from '../bindings';
import type { CallStatus } from '../lib/chatState';
import { installFakeBackend } from '../test/fakeBackend';
import { resetAppState } from '../test/reset';
import ChatToolCall from './ChatToolCall.svelte';

beforeEach(() => resetAppState());

function card(status: CallStatus | undefined, onanswer = vi.fn()) {
  const view = render(ChatToolCall, { server: 'weather', tool: 'get_weather', args: { city: 'Paris' }, status, onanswer, callId: 'c1' });
  return { ...view, onanswer };
}

test.each([
  ['Allow once', 'allow_once'],
  ['Allow for this chat', 'allow_for_chat'],
  ['Always allow', 'allow_always'],
  ['Deny', 'deny'],
])('“%s” answers the waiting approval with %s, once', async (label, answer) => {
  const { onanswer } = card({ kind: 'waiting', approvalId: 'ap9' });
  const user = userEvent.setup();

  await user.click(screen.getByRole('button', { name: label }));
  await user.click(screen.getByRole('button', { name: label }));

  expect(onanswer.mock.calls).toEqual([['ap9', answer]]);
});

test('a call goes from proposed to running with progress to a failed result, showing each state', async () => {
  const { rerender } = card(undefined);
  expect(screen.getByTestId('tool-call-state')).toHaveTextContent('Proposed');
  expect(screen.queryByTestId('approval-buttons')).toBeNull();

  await rerender({ status: { kind: 'running', progress: 1, total: 4, message: 'fetching' } });
  expect(screen.getByTestId('tool-call-state')).toHaveTextContent('Running…');
  expect(screen.getByRole('progressbar', { name: 'Progress of get_weather' })).toHaveAttribute('value', '1');
  expect(screen.getByText('fetching · 25%')).toBeInTheDocument();

  await rerender({ status: { kind: 'done', isError: true, content: { content: [{ type: 'text', text: 'no such city' }], structured: null } } });
  expect(screen.getByTestId('tool-call-state')).toHaveTextContent('Failed');
  expect(screen.getByTestId('tool-call-card')).toHaveClass('failed');
  expect(screen.getByTestId('tool-call-result')).toHaveTextContent('no such city');
});

test('malformed result parts from the engine are left out instead of breaking the card', () => {
  const content = {
    content: [null, { type: 'text', text: 7 }, { type: 'image', mime: 42, data: 'AAAA' }, { type: 'text', text: 'kept' }, { type: 'image', mime: 'image/png', data: 'iVBORw0KGgo=' }],
  };
  card({ kind: 'done', isError: false, content });

  expect(screen.getByTestId('tool-call-result')).toHaveTextContent(/^kept$/);
  expect(screen.getAllByRole('img').map((img) => img.getAttribute('src'))).toEqual(['data:image/png;base64,iVBORw0KGgo=']);
});

test('a result that carries an MCP App shows the App under the card once it has loaded', async () => {
  const backend = installFakeBackend([], { extra: (cmd) => (cmd === 'open_app_view' ? 'tok1' : cmd === 'close_app_view' ? null : undefined) });
  const app: AppView = {
    server: 'weather',
    tool: 'get_weather',
    resourceUri: 'ui://weather/app.html',
    html: '<p>app</p>',
    csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
    prefersBorder: null,
  };
  card({ kind: 'done', isError: false, content: { content: [{ type: 'text', text: 'sunny' }], structured: null, app } });

  const frame = await screen.findByTestId('mcp-app-frame');
  expect(frame).toHaveAttribute('src', 'mcpapp://localhost/tok1');
  expect(screen.getByTestId('tool-call-card')).toContainElement(frame);
  expect(backend.callsTo('open_app_view')).toHaveLength(1);
  expect(backend.callsTo('open_app_view')[0]).toMatchObject({ server: 'weather' });
});
