import { render, screen, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { emit } from '@tauri-apps/api/event';
import { beforeEach, describe, expect, test } from 'vitest';
import { listenServerEvents } from '../../lib/servers.svelte';
import { installFakeBackend } from '../../test/fakeBackend';
import { serverRecord } from '../../test/fakeServers';
import { resetAppState } from '../../test/reset';
import ServersSettings from './ServersSettings.svelte';

beforeEach(() => resetAppState());

const row = (name: string) => screen.getByRole('listitem', { name });

async function openAddForm() {
  const backend = installFakeBackend();
  const user = userEvent.setup();
  render(ServersSettings);
  await screen.findByTestId('servers-empty');
  await user.click(screen.getByRole('button', { name: 'Add server' }));
  return { backend, user };
}

describe('the add-server form’s built-in choice', () => {
  test('adds the built-in time server, which reads Starting then Ready with no Start pressed', async () => {
    const { backend, user } = await openAddForm();
    const unlisten = await listenServerEvents();
    await user.type(screen.getByLabelText(/^Name/), 'clock');
    await user.click(screen.getByLabelText('Built-in'));
    expect(screen.queryByLabelText(/^Command/)).toBeNull();
    expect(screen.getByLabelText('Built-in server')).toHaveValue('time');
    await user.click(screen.getByRole('button', { name: 'Save' }));

    expect(backend.callsTo('add_server')).toEqual([
      {
        input: {
          name: 'clock',
          transport: { type: 'builtin', server: 'time', allowPrivate: false, folders: [], env: {}, settings: {} },
          enabled: true,
          startupTimeoutMs: 60000,
          callTimeoutMs: 60000,
          autoStart: true,
          approval: 'ask',
        },
      },
    ]);
    expect(within(row('clock')).getByText('built-in time')).toBeInTheDocument();
    expect(within(row('clock')).getByTestId('server-status')).toHaveTextContent('Starting…');
    await emit('mcp:server', {
      type: 'state',
      server: 'clock',
      state: { type: 'ready', tools: 2, info: { name: 'mcp-time', title: null, version: '1', protocol_version: '2025-11-25', era: 'handshake', instructions: null } },
    });
    expect(within(row('clock')).getByTestId('server-status')).toHaveTextContent('Ready · 2 tools');
    expect(backend.callsTo('start_server')).toEqual([]);
    unlisten();
  });

  test('a built-in added with no name is named after itself, and a second one gets a number', async () => {
    const { backend, user } = await openAddForm();
    await user.click(screen.getByLabelText('Built-in'));
    expect(screen.getByLabelText(/^Name/)).toHaveAttribute('placeholder', 'time');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(backend.callsTo('add_server').map((c) => (c as { input: { name: string } }).input.name)).toEqual(['time']);
    expect(within(row('time')).getByText('built-in time')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Add server' }));
    await user.click(screen.getByLabelText('Built-in'));
    expect(screen.getByLabelText(/^Name/)).toHaveAttribute('placeholder', 'time-2');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(backend.callsTo('add_server').map((c) => (c as { input: { name: string } }).input.name)).toEqual(['time', 'time-2']);
  });

  test('fetch may be allowed private addresses; filesystem takes absolute folders', async () => {
    const { backend, user } = await openAddForm();
    await user.type(screen.getByLabelText(/^Name/), 'web');
    await user.click(screen.getByLabelText('Built-in'));
    await user.selectOptions(screen.getByLabelText('Built-in server'), 'fetch');
    await user.click(screen.getByLabelText(/May fetch local and private addresses/));
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(backend.callsTo('add_server')[0]).toMatchObject({
      input: { name: 'web', transport: { type: 'builtin', server: 'fetch', allowPrivate: true, folders: [] } },
    });

    await user.click(screen.getByRole('button', { name: 'Add server' }));
    await user.type(screen.getByLabelText(/^Name/), 'files');
    await user.click(screen.getByLabelText('Built-in'));
    await user.selectOptions(screen.getByLabelText('Built-in server'), 'filesystem');
    await user.type(screen.getByLabelText('Folders'), '/home/me/notes\nprojects');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(screen.getByTestId('field-error')).toHaveTextContent('“projects” is not an absolute path.');
    expect(screen.getByLabelText('Folders')).toHaveFocus();
    expect(backend.callsTo('add_server')).toHaveLength(1);

    await user.clear(screen.getByLabelText('Folders'));
    await user.type(screen.getByLabelText('Folders'), '/home/me/notes\n/srv/shared');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(backend.callsTo('add_server')[1]).toMatchObject({
      input: { name: 'files', transport: { type: 'builtin', server: 'filesystem', allowPrivate: false, folders: ['/home/me/notes', '/srv/shared'] } },
    });
  });

  test('web takes a search provider and its key, URL or engine id, each required where needed', async () => {
    const { backend, user } = await openAddForm();
    await user.type(screen.getByLabelText(/^Name/), 'web');
    await user.click(screen.getByLabelText('Built-in'));
    await user.selectOptions(screen.getByLabelText('Built-in server'), 'web');
    expect(screen.getByLabelText('Search provider')).toHaveValue('searxng');
    expect(screen.queryByLabelText('API key')).toBeNull();
    await user.type(screen.getByLabelText('SearXNG URL'), 'localhost:8080');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(screen.getByTestId('field-error')).toHaveTextContent('Enter the instance’s http:// or https:// address.');
    expect(screen.getByLabelText('SearXNG URL')).toHaveFocus();
    expect(backend.callsTo('add_server')).toEqual([]);

    await user.selectOptions(screen.getByLabelText('Search provider'), 'brave');
    expect(screen.queryByLabelText('SearXNG URL')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(screen.getByTestId('field-error')).toHaveTextContent('This provider needs an API key.');
    expect(screen.getByLabelText('API key')).toHaveAttribute('type', 'password');
    await user.type(screen.getByLabelText('API key'), 'BSA-123');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(backend.callsTo('add_server')[0]).toMatchObject({
      input: {
        name: 'web',
        transport: { type: 'builtin', server: 'web', allowPrivate: false, folders: [], env: { BRAVE_API_KEY: 'BSA-123' }, settings: { SEARCH_PROVIDER: 'brave' } },
      },
    });

    await user.click(screen.getByRole('button', { name: 'Add server' }));
    await user.type(screen.getByLabelText(/^Name/), 'google');
    await user.click(screen.getByLabelText('Built-in'));
    await user.selectOptions(screen.getByLabelText('Built-in server'), 'web');
    await user.selectOptions(screen.getByLabelText('Search provider'), 'google');
    await user.type(screen.getByLabelText('API key'), 'AIza');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(screen.getByTestId('field-error')).toHaveTextContent('Google needs the ID of your Programmable Search engine.');
    await user.type(screen.getByLabelText('Search engine ID (cx)'), 'cx-1');
    await user.click(screen.getByLabelText(/May read pages at local and private addresses/));
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(backend.callsTo('add_server')[1]).toMatchObject({
      input: {
        transport: { server: 'web', allowPrivate: true, env: { GOOGLE_API_KEY: 'AIza' }, settings: { SEARCH_PROVIDER: 'google', GOOGLE_CSE_ID: 'cx-1' } },
      },
    });
  });

  test('editing a web server shows its stored key masked and sends the mask back to keep it', async () => {
    const web = serverRecord({
      name: 'web',
      transport: { type: 'builtin', server: 'web', allowPrivate: false, folders: [], env: { TAVILY_API_KEY: '••••••••' }, settings: { SEARCH_PROVIDER: 'tavily' } },
    });
    const backend = installFakeBackend([], { servers: [web] });
    const user = userEvent.setup();
    render(ServersSettings);
    await screen.findAllByTestId('server-row');
    await user.click(screen.getByRole('button', { name: 'Edit web' }));
    expect(screen.getByLabelText('Built-in server')).toHaveValue('web');
    expect(screen.getByLabelText('Search provider')).toHaveValue('tavily');
    expect(screen.getByLabelText('API key')).toHaveValue('••••••••');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(backend.callsTo('update_server')[0]).toMatchObject({
      input: { transport: { server: 'web', env: { TAVILY_API_KEY: '••••••••' }, settings: { SEARCH_PROVIDER: 'tavily' } } },
    });
  });

  test('editing a built-in server keeps it built-in, with its settings', async () => {
    const files = serverRecord({ name: 'files', transport: { type: 'builtin', server: 'filesystem', allowPrivate: false, folders: ['/srv/shared'], env: {}, settings: {} } });
    const backend = installFakeBackend([], { servers: [files] });
    const user = userEvent.setup();
    render(ServersSettings);
    await screen.findAllByTestId('server-row');
    await user.click(screen.getByRole('button', { name: 'Edit files' }));
    expect(screen.getByLabelText('Built-in')).toBeChecked();
    expect(screen.getByLabelText('Built-in server')).toHaveValue('filesystem');
    expect(screen.getByLabelText('Folders')).toHaveValue('/srv/shared');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(backend.callsTo('update_server')[0]).toMatchObject({
      input: { name: 'files', transport: { type: 'builtin', server: 'filesystem', folders: ['/srv/shared'] } },
    });
  });
});

describe('the switch', () => {
  test('turning a server on only saves it: the engine starts it and its state says so', async () => {
    const off = serverRecord({ name: 'clock', enabled: false, transport: { type: 'builtin', server: 'time', allowPrivate: false, folders: [], env: {}, settings: {} } });
    const backend = installFakeBackend([], { servers: [off] });
    const user = userEvent.setup();
    const unlisten = await listenServerEvents();
    render(ServersSettings);
    await screen.findAllByTestId('server-row');
    expect(within(row('clock')).getByTestId('server-status')).toHaveTextContent('Disabled');

    await user.click(screen.getByRole('switch', { name: 'Use clock' }));
    expect(backend.callsTo('set_server_enabled')).toEqual([{ id: off.id, enabled: true }]);
    expect(backend.callsTo('start_server')).toEqual([]);
    await emit('mcp:server', { type: 'state', server: 'clock', state: { type: 'failed', reason: 'no time zone database' } });
    expect(within(row('clock')).getByTestId('server-status')).toHaveTextContent('Failed');
    expect(within(row('clock')).getByTestId('server-reason')).toHaveTextContent('no time zone database');
    unlisten();
  });
});
