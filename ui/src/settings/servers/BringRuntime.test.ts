import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { emit } from '@tauri-apps/api/event';
import { beforeEach, expect, test } from 'vitest';
import { listenServerEvents } from '../../lib/servers.svelte';
import { runtimeWanted } from '../../lib/runtimes';
import { installFakeBackend } from '../../test/fakeBackend';
import { serverRecord } from '../../test/fakeServers';
import { resetAppState } from '../../test/reset';
import ServersSettings from './ServersSettings.svelte';

beforeEach(() => resetAppState());

const MISSING_UVX =
  'cannot start `uvx`: it is not installed or not on the PATH. Switchboard can bring uv for its servers: `switchboard runtimes install uv`.';

test('a server that failed for want of uvx offers to bring uv in one click, with its size and source, then starts it', async () => {
  const backend = installFakeBackend([], { servers: [serverRecord({ name: 'time', transport: { type: 'stdio', command: 'uvx', args: ['mcp-server-time'], env: {} } })] });
  const unlisten = await listenServerEvents();
  const user = userEvent.setup();
  render(ServersSettings);
  const row = await screen.findByRole('listitem', { name: 'time' });
  await emit('mcp:server', { type: 'state', server: 'time', state: { type: 'failed', reason: MISSING_UVX } });
  const offer = await within(row).findByTestId('bring-runtime');
  await waitFor(() => expect(offer).toHaveTextContent('About 18 MB, from https://pypi.org'));
  await user.click(within(offer).getByRole('button', { name: 'Bring uv for servers' }));
  await waitFor(() => expect(backend.callsTo('start_server')).toEqual([{ name: 'time' }]));
  expect(backend.callsTo('install_runtime')).toEqual([{ name: 'uv' }]);
  unlisten();
});

test('a failure that is not a missing runtime offers nothing, and a failed download says why and starts nothing', async () => {
  expect(runtimeWanted('connection refused (127.0.0.1:3001)')).toBeNull();
  expect(runtimeWanted('… `switchboard runtimes install node`.')?.label).toBe('Node.js');
  const backend = installFakeBackend([], { servers: [serverRecord({ name: 'files' })] });
  backend.fail('install_runtime', { kind: 'io', message: 'the download of node was cut short; nothing was installed' });
  const unlisten = await listenServerEvents();
  const user = userEvent.setup();
  render(ServersSettings);
  const row = await screen.findByRole('listitem', { name: 'files' });
  await emit('mcp:server', { type: 'state', server: 'files', state: { type: 'failed', reason: 'Switchboard can bring Node.js for its servers: `switchboard runtimes install node`.' } });
  await user.click(await within(row).findByRole('button', { name: 'Bring Node.js for servers' }));
  expect(await within(row).findByRole('alert')).toHaveTextContent('the download of node was cut short');
  expect(backend.callsTo('start_server')).toEqual([]);
  unlisten();
});
