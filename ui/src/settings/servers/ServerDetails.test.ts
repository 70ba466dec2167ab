import { render, screen, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { emit } from '@tauri-apps/api/event';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import type { ServerLogs, ServerState, ToolInfo } from '../../bindings';
import { listenServerEvents } from '../../lib/servers.svelte';
import { installFakeBackend, type ExtraHandler } from '../../test/fakeBackend';
import { serverRecord } from '../../test/fakeServers';
import { resetAppState } from '../../test/reset';
import ServersSettings from './ServersSettings.svelte';

beforeEach(() => resetAppState());
afterEach(() => vi.useRealTimers());

const READY: ServerState = {
  type: 'ready',
  info: { name: 'mcp-servers/everything', title: null, version: '2.0.0', protocol_version: '2025-11-25', era: 'handshake', instructions: null },
  tools: 1,
};

const ECHO: ToolInfo = {
  name: 'echo',
  title: 'Echo Tool',
  description: 'Echoes back the input',
  input_schema: { type: 'object', properties: { message: { type: 'string', description: 'Message to echo' } }, required: ['message'] },
  output_schema: null,
  annotations: { read_only: null, destructive: null, idempotent: null, open_world: null },
};

/** A fake for one server named "everything" in `state`, answering the running-server commands. */
function setup(state: ServerState, more: ExtraHandler = () => undefined) {
  const backend = installFakeBackend([], {
    servers: [serverRecord({ name: 'everything' })],
    extra: (cmd, args) => {
      const answer = more(cmd, args);
      if (answer !== undefined) return answer;
      switch (cmd) {
        case 'server_states':
          return [{ name: 'everything', state }];
        case 'start_server':
        case 'restart_server':
          return null;
        case 'stop_server':
          return true;
        case 'server_tools':
          return [ECHO];
        case 'server_resources':
          return [{ uri: 'demo://resource/static/document/architecture.md', name: 'architecture.md', title: null, description: 'The architecture', mime: 'text/markdown', size: null }];
        case 'server_prompts':
          return [{ name: 'args-prompt', title: null, description: 'A prompt with arguments', arguments: [{ name: 'city', description: null, required: true }] }];
        case 'call_tool':
          return { content: [{ type: 'text', text: `Echo: ${(args.args as { message: string }).message}` }], structured: null, is_error: false };
        default:
          return undefined;
      }
    },
  });
  render(ServersSettings);
  return { backend, user: userEvent.setup() };
}

async function openDetails(user: ReturnType<typeof userEvent.setup>) {
  await user.click(await screen.findByRole('button', { name: 'Details of everything' }));
  return screen.getByTestId('server-details');
}

describe('a server’s details', () => {
  test('start, stop and restart call the commands with the server’s name', async () => {
    const { backend, user } = setup({ type: 'stopped' });
    const unlisten = await listenServerEvents();
    const details = await openDetails(user);
    expect(within(details).getByRole('button', { name: 'Stop' })).toBeDisabled();

    await user.click(within(details).getByRole('button', { name: 'Start' }));
    expect(backend.callsTo('start_server')).toEqual([{ name: 'everything' }]);

    await emit('mcp:server', { type: 'state', server: 'everything', state: READY });
    expect(within(details).getByRole('button', { name: 'Start' })).toBeDisabled();
    await user.click(within(details).getByRole('button', { name: 'Restart' }));
    await user.click(within(details).getByRole('button', { name: 'Stop' }));
    expect(backend.callsTo('restart_server')).toEqual([{ name: 'everything' }]);
    expect(backend.callsTo('stop_server')).toEqual([{ name: 'everything' }]);
    unlisten();
  });

  test('the states before any event come from server_states', async () => {
    const { user } = setup(READY);
    const details = await openDetails(user);
    expect(await within(details).findByText('echo')).toBeInTheDocument();
    expect(screen.getByTestId('server-status')).toHaveTextContent('Ready · 1 tools');
  });

  test('a ready server shows the protocol era and revision it negotiated', async () => {
    const { user } = setup(READY);
    const details = await openDetails(user);
    expect(within(details).getByTestId('server-protocol')).toHaveTextContent('Handshake protocol 2025-11-25');
  });

  test('a stateless-era server is shown as such', async () => {
    const stateless: ServerState = { ...READY, info: { ...READY.info, protocol_version: '2026-07-28', era: 'stateless' } } as ServerState;
    const { user } = setup(stateless);
    const details = await openDetails(user);
    expect(within(details).getByTestId('server-protocol')).toHaveTextContent('Stateless protocol 2026-07-28');
  });

  test('a stopped server says to start it instead of listing', async () => {
    const { backend, user } = setup({ type: 'stopped' });
    const details = await openDetails(user);
    expect(within(details).getByTestId('not-ready')).toHaveTextContent('Start the server to see what it offers.');
    expect(backend.callsTo('server_tools')).toEqual([]);
  });

  test('a starting server says its offers appear when it is ready, not to start it', async () => {
    const { backend, user } = setup({ type: 'starting' } as ServerState);
    const details = await openDetails(user);
    expect(within(details).getByTestId('not-ready')).toHaveTextContent('Starting… its tools, resources and prompts appear here when it is ready.');
    expect(backend.callsTo('server_tools')).toEqual([]);
  });

  test('lists tools with description and input schema, and tries one through call_tool', async () => {
    const { backend, user } = setup(READY);
    const details = await openDetails(user);
    const tool = await within(details).findByRole('listitem', { name: 'echo' });
    expect(tool).toHaveTextContent('Echo Tool');
    expect(tool).toHaveTextContent('Echoes back the input');
    expect(within(tool).getByText(/"required": \[/)).toBeInTheDocument();

    await user.click(within(tool).getByRole('button', { name: 'Try echo' }));
    await user.type(within(tool).getByLabelText(/^message/), 'hello');
    await user.click(within(tool).getByRole('button', { name: 'Run tool' }));

    expect(await within(tool).findByTestId('tool-call-result')).toHaveTextContent('Echo: hello');
    expect(backend.callsTo('call_tool')).toEqual([{ server: 'everything', tool: 'echo', args: { message: 'hello' } }]);
  });

  test('tools are listed again when the server says they changed', async () => {
    const { backend, user } = setup(READY);
    await openDetails(user);
    await screen.findByText('echo');
    const unlisten = await listenServerEvents();
    await emit('mcp:server', { type: 'tools_changed', server: 'everything' });
    expect(backend.callsTo('server_tools')).toHaveLength(2);
    unlisten();
  });

  test('the tabs show resources and prompts, and arrow keys move between tabs', async () => {
    const { user } = setup(READY);
    const details = await openDetails(user);
    await user.click(within(details).getByRole('tab', { name: 'Resources' }));
    expect(await within(details).findByText('demo://resource/static/document/architecture.md')).toBeInTheDocument();
    expect(details).toHaveTextContent('The architecture');

    await user.keyboard('{ArrowRight}');
    expect(within(details).getByRole('tab', { name: 'Prompts' })).toHaveFocus();
    expect(within(details).getByRole('tab', { name: 'Prompts' })).toHaveAttribute('aria-selected', 'true');
    expect(await within(details).findByText('args-prompt')).toBeInTheDocument();
    expect(details).toHaveTextContent('Arguments: city*');
  });

  test('the log view shows stderr and log messages and refreshes while open', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    let logs: ServerLogs = { stderr: ['Starting server…'], messages: [] };
    const { backend, user } = setup(READY, (cmd) => (cmd === 'server_logs' ? logs : undefined));
    const details = await openDetails(user);
    await user.click(within(details).getByRole('tab', { name: 'Logs' }));
    expect(await within(details).findByTestId('log-stderr')).toHaveTextContent('Starting server…');

    logs = { stderr: ['Starting server…', 'listening'], messages: ['[info] a log message'] };
    await vi.advanceTimersByTimeAsync(2000);
    expect(await within(details).findByTestId('log-messages')).toHaveTextContent('[info] a log message');
    expect(within(details).getByTestId('log-stderr')).toHaveTextContent('listening');

    await user.click(within(details).getByRole('tab', { name: 'Tools' }));
    const asked = backend.callsTo('server_logs').length;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(backend.callsTo('server_logs')).toHaveLength(asked);
  });
});
