import { render, screen, waitFor } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, test, vi } from 'vitest';
import type { AppView } from '../bindings';
import { installFakeBackend } from '../test/fakeBackend';
import { resetAppState } from '../test/reset';
import { setTheme } from '../lib/theme.svelte';
import McpApp from './McpApp.svelte';

beforeEach(() => resetAppState());

const APP: AppView = {
  server: 'basic',
  tool: 'get-time',
  resourceUri: 'ui://basic/app.html',
  html: '<p>app</p>',
  csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
  prefersBorder: null,
};
const RESULT = { content: [{ type: 'text', text: 'now' }], structured: { time: 'now' }, is_error: false };

function setup() {
  let approvals = 0;
  const backend = installFakeBackend([], {
    extra: (cmd, args) => {
      if (cmd === 'open_app_view') return 'tok1';
      if (cmd === 'close_app_view') return null;
      if (cmd === 'open_external') return null;
      if (cmd === 'app_call_tool') {
        const call = args.call as { approval: string | null };
        if (call.approval === null) return { type: 'needs_approval' };
        approvals += 1;
        return { type: 'done', result: { content: [{ type: 'text', text: 'later' }], structured: null, is_error: false } };
      }
      return undefined;
    },
  });
  render(McpApp, { app: APP, args: { a: 1 }, result: RESULT, conversationId: 'c1', callId: 'call1' });
  return { backend, approvals: () => approvals };
}

async function frameWindow() {
  const frame = (await screen.findByTestId('mcp-app-frame')) as HTMLIFrameElement;
  const win = frame.contentWindow!;
  const posted = vi.spyOn(win, 'postMessage').mockImplementation(() => {});
  const fromFrame = (data: unknown, source: Window | null = win, origin = 'null') =>
    window.dispatchEvent(new MessageEvent('message', { data, source, origin }));
  const sent = () => posted.mock.calls.map((c) => c[0] as { id?: unknown; method?: string; result?: unknown; error?: unknown });
  return { frame, fromFrame, sent };
}

describe('McpApp', () => {
  test('loads the App from the mcpapp scheme in a frame sandboxed to scripts only', async () => {
    setup();
    const { frame } = await frameWindow();
    expect(frame.getAttribute('src')).toBe('mcpapp://localhost/tok1');
    expect(frame.getAttribute('sandbox')).toBe('allow-scripts');
    expect(frame.getAttribute('allow')).toBe('');
  });

  test('answers only messages from its own frame with an opaque origin', async () => {
    setup();
    const { fromFrame, sent } = await frameWindow();
    const init = { jsonrpc: '2.0', id: 1, method: 'ui/initialize', params: {} };
    fromFrame(init, window);
    fromFrame(init, undefined, 'tauri://localhost');
    await new Promise((r) => setTimeout(r, 0));
    expect(sent()).toEqual([]);
    fromFrame(init);
    await waitFor(() => expect(sent().map((m) => m.id)).toEqual([1]));
    fromFrame({ jsonrpc: '2.0', method: 'ui/notifications/initialized' });
    expect(sent().map((m) => m.method)).toEqual([undefined, 'ui/notifications/tool-input', 'ui/notifications/tool-result']);
    expect(sent()[2]).toEqual({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: { content: [{ type: 'text', text: 'now' }], isError: false, structuredContent: { time: 'now' } } });
  });

  test('switching the theme tells the running App with host-context-changed', async () => {
    setTheme('light');
    setup();
    const { fromFrame, sent } = await frameWindow();
    fromFrame({ jsonrpc: '2.0', id: 1, method: 'ui/initialize', params: {} });
    await waitFor(() => expect(sent().length).toBe(1));
    expect((sent()[0].result as { hostContext: { theme: string } }).hostContext.theme).toBe('light');
    fromFrame({ jsonrpc: '2.0', method: 'ui/notifications/initialized' });
    setTheme('dark');
    await waitFor(() => expect(sent().at(-1)).toEqual({ jsonrpc: '2.0', method: 'ui/notifications/host-context-changed', params: { theme: 'dark' } }));
    setTheme('system');
  });

  test('an App tool call the policy asks about waits for the user in the card', async () => {
    const { backend, approvals } = setup();
    const user = userEvent.setup();
    const { fromFrame, sent } = await frameWindow();
    fromFrame({ jsonrpc: '2.0', id: 1, method: 'ui/initialize', params: {} });
    await waitFor(() => expect(sent().length).toBe(1));
    fromFrame({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get-time', arguments: {} } });
    expect(await screen.findByText('The App wants to run get-time from basic.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Allow once' }));
    await waitFor(() => expect(sent().at(-1)).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'later' }], isError: false } }));
    expect(approvals()).toBe(1);
    const calls = backend.calls.filter((c) => c.cmd === 'app_call_tool').map((c) => c.args.call);
    expect(calls).toEqual([
      { server: 'basic', tool: 'get-time', arguments: {}, conversationId: 'c1', app: 'ui://basic/app.html', approval: null },
      { server: 'basic', tool: 'get-time', arguments: {}, conversationId: 'c1', app: 'ui://basic/app.html', approval: 'allow_once' },
    ]);
  });

  test('the approval card shows what the App asks to write, long values folded', async () => {
    setup();
    const user = userEvent.setup();
    const { fromFrame, sent } = await frameWindow();
    fromFrame({ jsonrpc: '2.0', id: 1, method: 'ui/initialize', params: {} });
    await waitFor(() => expect(sent().length).toBe(1));
    const content = 'rm -rf ~ '.repeat(60);
    const args = { path: '/home/me/.bashrc', content };
    fromFrame({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'write_file', arguments: args } });
    const shown = await screen.findByTestId('mcp-app-ask-arguments');
    expect(shown).toHaveTextContent('"path": "/home/me/.bashrc"');
    expect(shown).toHaveTextContent(`(+${content.length - 200} characters)`);
    expect(shown.textContent).not.toContain(content);
    expect(screen.getByText(/cover this App’s calls only/)).toBeInTheDocument();
    await user.click(screen.getByText('Show the full arguments'));
    expect(screen.getByTestId('mcp-app-ask-full-arguments').textContent).toContain(content.trim());
  });

  test('closing tears the App down first, then forgets its document', async () => {
    const { backend } = setup();
    const user = userEvent.setup();
    const { fromFrame, sent } = await frameWindow();
    await user.click(screen.getByTestId('mcp-app-close'));
    const teardown = sent().at(-1) as { id: string; method: string };
    expect(teardown.method).toBe('ui/resource-teardown');
    expect(backend.calls.some((c) => c.cmd === 'close_app_view')).toBe(false);
    fromFrame({ jsonrpc: '2.0', id: teardown.id, result: {} });
    expect(await screen.findByText('The App was closed.')).toBeInTheDocument();
    expect(backend.calls.filter((c) => c.cmd === 'close_app_view').map((c) => c.args)).toEqual([{ token: 'tok1' }]);
  });
});

describe('switching conversations', () => {
  test('tears every App on screen down before the switch', async () => {
    setup();
    const { fromFrame, sent } = await frameWindow();
    const { teardownApps } = await import('../lib/mcpApp');
    let done = false;
    const switching = teardownApps().then(() => (done = true));
    const teardown = sent().at(-1) as { id: string; method: string };
    expect(teardown.method).toBe('ui/resource-teardown');
    await new Promise((r) => setTimeout(r, 0));
    expect(done).toBe(false);
    fromFrame({ jsonrpc: '2.0', id: teardown.id, result: {} });
    await switching;
    expect(done).toBe(true);
  });
});

describe('links', () => {
  test('a link opens in the browser only after the user confirms it in the card', async () => {
    const { backend } = setup();
    const user = userEvent.setup();
    const { fromFrame, sent } = await frameWindow();
    fromFrame({ jsonrpc: '2.0', id: 1, method: 'ui/initialize', params: {} });
    await waitFor(() => expect(sent().length).toBe(1));
    fromFrame({ jsonrpc: '2.0', id: 2, method: 'ui/open-link', params: { url: 'https://example.com/a' } });
    await user.click(await screen.findByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(sent().at(-1)).toEqual({ jsonrpc: '2.0', id: 2, result: { isError: true } }));
    expect(backend.calls.some((c) => c.cmd === 'open_external')).toBe(false);
    fromFrame({ jsonrpc: '2.0', id: 3, method: 'ui/open-link', params: { url: 'https://example.com/b' } });
    expect(await screen.findByText('The App wants to open https://example.com/b in your browser.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Open' }));
    await waitFor(() => expect(sent().at(-1)).toEqual({ jsonrpc: '2.0', id: 3, result: {} }));
    expect(backend.calls.filter((c) => c.cmd === 'open_external').map((c) => c.args)).toEqual([{ url: 'https://example.com/b' }]);
  });
});
