import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, expect, test, vi } from 'vitest';
import type { LocalServerStatus, ServeCall, ServeClient, ServeGrant } from '../../bindings';
import { installFakeBackend } from '../../test/fakeBackend';
import { resetAppState } from '../../test/reset';
import LocalServerSettings from './LocalServerSettings.svelte';

beforeEach(() => resetAppState());

/** A backend that keeps the local server's switch, port and clients. */
function serveBackend(start: { status?: Partial<LocalServerStatus>; clients?: ServeClient[]; calls?: ServeCall[]; grants?: ServeGrant[]; portTaken?: number } = {}) {
  let status: LocalServerStatus = { enabled: false, port: 9797, url: null, error: null, ...start.status };
  const clients = [...(start.clients ?? [])];
  let grants = [...(start.grants ?? [])];
  return installFakeBackend([], {
    extra: (cmd, args) => {
      const a = args as Record<string, unknown>;
      switch (cmd) {
        case 'local_server_status':
          return { ...status };
        case 'set_local_server': {
          const port = Number(a.port);
          const enabled = Boolean(a.enabled);
          const taken = enabled && port === start.portTaken;
          status = { enabled, port, url: enabled && !taken ? `http://127.0.0.1:${port}/mcp` : null, error: taken ? `cannot listen on 127.0.0.1:${port}: Address in use` : null };
          return { ...status };
        }
        case 'list_serve_clients':
          return structuredClone(clients);
        case 'add_serve_client': {
          const client: ServeClient = { id: `c${clients.length + 1}`, name: String(a.name), servers: (a.servers as string[] | null) ?? null, tools: null, createdAt: 0, lastUsedAt: null };
          clients.push(client);
          return { client, token: 'sb_secret123' };
        }
        case 'remove_serve_client':
          clients.splice(
            clients.findIndex((c) => c.id === a.id),
            1,
          );
          return null;
        case 'serve_client_calls':
          return structuredClone(start.calls ?? []);
        case 'serve_client_grants':
          return structuredClone(grants);
        case 'revoke_serve_client_grant':
          grants = grants.filter((g) => !(g.server === a.server && g.tool === a.tool));
          return null;
        case 'set_serve_client_servers': {
          const client = clients.find((c) => c.id === a.id);
          if (client) client.servers = (a.servers as string[] | null) ?? null;
          return null;
        }
        case 'set_serve_client_tools': {
          const client = clients.find((c) => c.id === a.id);
          if (client) client.tools = (a.tools as Record<string, string[]> | null) ?? null;
          return null;
        }
        case 'server_states':
          return [
            { name: 'clock', state: { type: 'ready', info: { name: 'clock', version: '1' }, tools: 2 } },
            { name: 'files', state: { type: 'ready', info: { name: 'files', version: '1' }, tools: 1 } },
            { name: 'broken', state: { type: 'failed', reason: 'exited' } },
          ];
        case 'server_tools':
          return (a.name === 'clock' ? ['get_current_time', 'convert_time'] : ['read_file']).map((name) => ({ name, description: null, inputSchema: {} }));
        default:
          return undefined;
      }
    },
  });
}

test('the local server is off until switched on, then shows where it listens; a taken port is said', async () => {
  const backend = serveBackend({ portTaken: 8000 });
  const user = userEvent.setup();
  render(LocalServerSettings);
  const toggle = await screen.findByTestId('serve-enabled');
  expect(toggle).not.toBeChecked();
  await user.click(toggle);
  expect(backend.callsTo('set_local_server')).toEqual([{ enabled: true, port: 9797 }]);
  expect(await screen.findByTestId('serve-listening')).toHaveTextContent('http://127.0.0.1:9797/mcp');
  expect(screen.getByTestId('serve-openai')).toHaveTextContent('http://127.0.0.1:9797/v1');
  const port = screen.getByTestId('serve-port');
  await user.clear(port);
  await user.type(port, '8000');
  await user.click(screen.getByTestId('serve-apply'));
  expect(await screen.findByTestId('serve-error')).toHaveTextContent('Address in use');
});

test('a new client shows its token once, in the snippet an app takes, limited to the servers named', async () => {
  const backend = serveBackend({ status: { enabled: true, url: 'http://127.0.0.1:9797/mcp' } });
  const user = userEvent.setup();
  render(LocalServerSettings);
  await screen.findByTestId('serve-no-clients');
  await user.type(screen.getByTestId('serve-client-name'), 'Cursor');
  await user.type(screen.getByTestId('serve-client-servers'), 'clock, files');
  await user.click(screen.getByTestId('serve-client-add'));
  expect(backend.callsTo('add_serve_client')).toEqual([{ name: 'Cursor', servers: ['clock', 'files'] }]);
  const snippet = JSON.parse((await screen.findByTestId('serve-snippet-http')).textContent ?? '');
  expect(snippet.mcpServers.switchboard).toEqual({ type: 'http', url: 'http://127.0.0.1:9797/mcp', headers: { Authorization: 'Bearer sb_secret123' } });
  const openai = screen.getByTestId('serve-snippet-openai').textContent ?? '';
  expect(openai).toContain('base_url = "http://127.0.0.1:9797/v1"');
  expect(openai).toContain('api_key = "sb_secret123"');
  const row = screen.getByTestId('serve-client');
  expect(row).toHaveTextContent('clock, files');
  await user.click(within(row).getByTestId('serve-client-remove'));
  await waitFor(() => expect(screen.queryByTestId('serve-token')).toBeNull());
  expect(await screen.findByTestId('serve-no-clients')).toBeInTheDocument();
});

test("a client's recent calls are listed with how each ended", async () => {
  const client: ServeClient = { id: 'c1', name: 'Zed', servers: null, tools: null, createdAt: 0, lastUsedAt: 5 };
  const calls: ServeCall[] = [{ server: 'clock', tool: 'get_current_time', outcome: 'unanswered', durationMs: 3, at: 10 }];
  serveBackend({ clients: [client], calls });
  const user = userEvent.setup();
  render(LocalServerSettings);
  const row = await screen.findByTestId('serve-client');
  expect(row).toHaveTextContent('all servers');
  await user.click(within(row).getByRole('button', { name: 'Calls' }));
  expect(await screen.findByTestId('serve-calls')).toHaveTextContent('clock/get_current_time not approved (nobody could be asked) · 3 ms');
});

test("an open list of a client's calls shows new calls as they come", async () => {
  vi.useFakeTimers({ shouldAdvanceTime: true });
  try {
    const client: ServeClient = { id: 'c1', name: 'Zed', servers: null, tools: null, createdAt: 0, lastUsedAt: 5 };
    const calls: ServeCall[] = [{ server: 'clock', tool: 'get_current_time', outcome: 'done', durationMs: 3, at: 10 }];
    serveBackend({ clients: [client], calls });
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    render(LocalServerSettings);
    const row = await screen.findByTestId('serve-client');
    await user.click(within(row).getByRole('button', { name: 'Calls' }));
    expect(await screen.findByTestId('serve-calls')).not.toHaveTextContent('convert_time');
    calls.unshift({ server: 'clock', tool: 'convert_time', outcome: 'refused', durationMs: 1, at: 20 });
    await vi.advanceTimersByTimeAsync(3100);
    await waitFor(() => expect(screen.getByTestId('serve-calls')).toHaveTextContent('clock/convert_time refused'));
  } finally {
    vi.useRealTimers();
  }
});

test("the tools a client was always allowed are listed with its calls, and each can be asked about again", async () => {
  const client: ServeClient = { id: 'c1', name: 'Cursor', servers: null, tools: null, createdAt: 0, lastUsedAt: 5 };
  const grants: ServeGrant[] = [
    { server: 'clock', tool: 'get_current_time' },
    { server: 'clock', tool: 'convert_time' },
  ];
  const backend = serveBackend({ clients: [client], grants });
  const user = userEvent.setup();
  render(LocalServerSettings);
  const row = await screen.findByTestId('serve-client');
  await user.click(within(row).getByRole('button', { name: 'Calls' }));
  const list = await screen.findByTestId('serve-grants');
  expect(list).toHaveTextContent('clock/get_current_time');
  await user.click(within(list).getAllByRole('button', { name: 'Ask again' })[0]);
  expect(backend.callsTo('revoke_serve_client_grant')).toEqual([{ id: 'c1', server: 'clock', tool: 'get_current_time' }]);
  await waitFor(() => expect(screen.getByTestId('serve-grants')).not.toHaveTextContent('get_current_time'));
  expect(screen.getByTestId('serve-grants')).toHaveTextContent('clock/convert_time');
});

test("a client's servers are edited in place: some named, or all again when left empty", async () => {
  const client: ServeClient = { id: 'c1', name: 'Zed', servers: ['clock'], tools: null, createdAt: 0, lastUsedAt: null };
  const backend = serveBackend({ clients: [client] });
  const user = userEvent.setup();
  render(LocalServerSettings);
  const row = await screen.findByTestId('serve-client');
  expect(row).toHaveTextContent('clock');
  await user.click(within(row).getByTestId('serve-client-edit'));
  const field = within(row).getByTestId('serve-client-servers-edit');
  expect(field).toHaveValue('clock');
  await user.clear(field);
  await user.type(field, 'clock, files');
  await user.click(within(row).getByTestId('serve-client-save'));
  await waitFor(() => expect(screen.getByTestId('serve-client')).toHaveTextContent('clock, files'));
  await user.click(within(screen.getByTestId('serve-client')).getByTestId('serve-client-edit'));
  await user.clear(screen.getByTestId('serve-client-servers-edit'));
  await user.click(screen.getByTestId('serve-client-save'));
  await waitFor(() => expect(screen.getByTestId('serve-client')).toHaveTextContent('all servers'));
  expect(backend.callsTo('set_serve_client_servers')).toEqual([
    { id: 'c1', servers: ['clock', 'files'] },
    { id: 'c1', servers: null },
  ]);
  expect(screen.queryByTestId('serve-client-servers-edit')).toBeNull();
});

test("a client's tools are ticked per running server within its reach: one unticked is saved as that server's list, all ticked again drops it", async () => {
  const client: ServeClient = { id: 'c1', name: 'Zed', servers: null, tools: null, createdAt: 0, lastUsedAt: null };
  const backend = serveBackend({ clients: [client] });
  const user = userEvent.setup();
  render(LocalServerSettings);
  const row = await screen.findByTestId('serve-client');
  await user.click(within(row).getByTestId('serve-client-edit'));
  await waitFor(() => expect(within(row).getAllByTestId('serve-client-tool')).toHaveLength(3));
  const boxes = within(row).getAllByTestId('serve-client-tool');
  expect(boxes.map((b) => b.dataset.tool)).toEqual(['clock/get_current_time', 'clock/convert_time', 'files/read_file']);
  expect(boxes.every((b) => (b as HTMLInputElement).checked)).toBe(true);
  await user.click(boxes[1]);
  await user.click(within(row).getByTestId('serve-client-save'));
  await waitFor(() => expect(backend.callsTo('set_serve_client_tools')).toHaveLength(1));
  await waitFor(() => expect(screen.getByTestId('serve-client')).toHaveTextContent('some tools of clock'));
  expect(backend.callsTo('set_serve_client_tools')).toEqual([{ id: 'c1', tools: { clock: ['get_current_time'] } }]);

  // Limited to files, only files' tools are shown; clock's list is kept as it is.
  await user.click(within(screen.getByTestId('serve-client')).getByTestId('serve-client-edit'));
  const field = screen.getByTestId('serve-client-servers-edit');
  await user.type(field, 'files');
  await waitFor(() => expect(screen.getAllByTestId('serve-client-tool').map((b) => b.dataset.tool)).toEqual(['files/read_file']));
  await user.clear(field);
  await waitFor(() => expect(screen.getAllByTestId('serve-client-tool')).toHaveLength(3));
  expect((screen.getAllByTestId('serve-client-tool')[1] as HTMLInputElement).checked).toBe(false);
  await user.click(screen.getAllByTestId('serve-client-tool')[1]);
  await user.click(screen.getByTestId('serve-client-save'));
  await waitFor(() => expect(screen.getByTestId('serve-client')).not.toHaveTextContent('some tools'));
  expect(backend.callsTo('set_serve_client_tools')[1]).toEqual({ id: 'c1', tools: null });
});
