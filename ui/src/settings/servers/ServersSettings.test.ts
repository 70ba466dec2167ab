import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { emit } from '@tauri-apps/api/event';
import { beforeEach, describe, expect, test } from 'vitest';
import { setLang } from '../../i18n/index.svelte';
import { listenServerEvents, servers } from '../../lib/servers.svelte';
import { installFakeBackend } from '../../test/fakeBackend';
import { serverRecord } from '../../test/fakeServers';
import { resetAppState } from '../../test/reset';
import ServersSettings from './ServersSettings.svelte';

beforeEach(() => resetAppState());

const everything = () => serverRecord({ name: 'everything' });
const remote = () =>
  serverRecord({ name: 'remote', transport: { type: 'http', url: 'http://127.0.0.1:3001/mcp', headers: { Authorization: 'Bearer abc' } } });

const row = (name: string) => screen.getByRole('listitem', { name });

describe('the server manager', () => {
  test('lists servers by name with how each is reached', async () => {
    installFakeBackend([], { servers: [remote(), everything()] });
    render(ServersSettings);
    const rows = await screen.findAllByTestId('server-row');
    expect(rows.map((r) => r.dataset.name)).toEqual(['everything', 'remote']);
    expect(within(row('everything')).getByText('npx -y @modelcontextprotocol/server-everything')).toBeInTheDocument();
    expect(within(row('remote')).getByText('http://127.0.0.1:3001/mcp (HTTP)')).toBeInTheDocument();
    // Not reported yet: the engine starts an enabled server that starts on its own.
    expect(within(row('remote')).getByTestId('server-status')).toHaveTextContent('Starting…');
  });

  test('status lights follow mcp:server events, with the reason of a failure', async () => {
    installFakeBackend([], { servers: [everything(), remote()] });
    const unlisten = await listenServerEvents();
    render(ServersSettings);
    await screen.findAllByTestId('server-row');

    await emit('mcp:server', { type: 'state', server: 'everything', state: { type: 'starting' } });
    expect(within(row('everything')).getByTestId('server-status')).toHaveTextContent('Starting…');
    await emit('mcp:server', {
      type: 'state',
      server: 'everything',
      state: { type: 'ready', info: { name: 'mcp-servers/everything', title: null, version: '2.0.0', protocol_version: '2025-11-25', era: 'handshake', instructions: null }, tools: 11 },
    });
    await emit('mcp:server', { type: 'state', server: 'remote', state: { type: 'failed', reason: 'connection refused (127.0.0.1:3001)' } });
    await emit('mcp:server', { type: 'garbage' });

    expect(within(row('everything')).getByTestId('server-status')).toHaveTextContent('Ready · 11 tools');
    expect(row('everything').querySelector('[data-light]')).toHaveAttribute('data-light', 'ready');
    expect(within(row('remote')).getByTestId('server-reason')).toHaveTextContent('connection refused (127.0.0.1:3001)');
    expect(row('remote').querySelector('[data-light]')).toHaveAttribute('data-light', 'failed');

    await emit('mcp:server', { type: 'state', server: 'remote', state: { type: 'restarting', attempt: 2, in_ms: 1500 } });
    expect(within(row('remote')).getByTestId('server-status')).toHaveTextContent('Restarting (attempt 2) in 2 s');
    await emit('mcp:server', { type: 'tools_changed', server: 'everything' });
    expect(servers.toolsVersion.everything).toBe(1);
    unlisten();
  });

  test('listens to mcp:server, the event the shell emits, not the old mcp://state', async () => {
    installFakeBackend([], { servers: [everything()] });
    const unlisten = await listenServerEvents();
    render(ServersSettings);
    await screen.findAllByTestId('server-row');

    await emit('mcp://state', { type: 'state', server: 'everything', state: { type: 'failed', reason: 'old name' } });
    expect(within(row('everything')).getByTestId('server-status')).toHaveTextContent('Starting…');
    expect(within(row('everything')).queryByTestId('server-reason')).toBeNull();
    await emit('mcp:server', { type: 'state', server: 'everything', state: { type: 'failed', reason: 'new name' } });
    expect(within(row('everything')).getByTestId('server-reason')).toHaveTextContent('new name');
    unlisten();
  });

  test('a server that needs an OAuth sign-in says where, and opens it only on a click', async () => {
    const backend = installFakeBackend([], { servers: [remote()], extra: (cmd) => (cmd === 'open_external' ? null : undefined) });
    const user = userEvent.setup();
    const unlisten = await listenServerEvents();
    render(ServersSettings);
    await screen.findAllByTestId('server-row');

    const url = 'https://auth.example.com/authorize?client_id=switchboard&state=xyz';
    await emit('mcp:server', { type: 'state', server: 'remote', state: { type: 'starting' } });
    await emit('mcp:server', { type: 'authorization_needed', server: 'remote', url });
    const notice = within(row('remote')).getByTestId('server-sign-in');
    expect(notice).toHaveTextContent('This server asks you to sign in at auth.example.com.');
    expect(backend.callsTo('open_external')).toEqual([]);

    await user.click(within(notice).getByRole('button', { name: 'Sign in in the browser' }));
    expect(backend.callsTo('open_external')).toEqual([{ url }]);

    await emit('mcp:server', { type: 'state', server: 'remote', state: { type: 'failed', reason: 'authorization was refused' } });
    expect(within(row('remote')).queryByTestId('server-sign-in')).toBeNull();
    unlisten();
  });

  test('adds a stdio server from the form', async () => {
    const backend = installFakeBackend();
    const user = userEvent.setup();
    render(ServersSettings);
    await screen.findByTestId('servers-empty');

    await user.click(screen.getByRole('button', { name: 'Add server' }));
    await user.type(screen.getByLabelText(/^Name/), 'files');
    await user.type(screen.getByLabelText(/^Command/), 'npx');
    await user.type(screen.getByLabelText('Arguments'), '-y\n@modelcontextprotocol/server-filesystem\n/home/me/My Documents');
    await user.type(screen.getByLabelText('Environment variables'), 'LOG_LEVEL=debug\nTOKEN=a=b');
    await user.type(screen.getByLabelText('Working directory'), '/tmp');
    await user.click(screen.getByRole('button', { name: 'Save' }));

    expect(backend.callsTo('add_server')).toEqual([
      {
        input: {
          name: 'files',
          transport: {
            type: 'stdio',
            command: 'npx',
            args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me/My Documents'],
            env: { LOG_LEVEL: 'debug', TOKEN: 'a=b' },
            cwd: '/tmp',
          },
          enabled: true,
          startupTimeoutMs: 60000,
          callTimeoutMs: 60000,
          autoStart: true,
          approval: 'ask',
        },
      },
    ]);
    expect(screen.queryByTestId('server-form')).toBeNull();
    expect(within(row('files')).getByText('npx -y @modelcontextprotocol/server-filesystem "/home/me/My Documents"')).toBeInTheDocument();
  });

  test('the form says what is wrong before saving, and shows the engine’s refusal', async () => {
    const backend = installFakeBackend([], { servers: [everything()] });
    const user = userEvent.setup();
    render(ServersSettings);
    await screen.findAllByTestId('server-row');
    await user.click(screen.getByRole('button', { name: 'Add server' }));

    await user.click(screen.getByLabelText('Remote (streamable HTTP)'));
    await user.type(screen.getByLabelText(/^Name/), 'everything');
    await user.type(screen.getByLabelText(/^URL/), 'ftp://example');
    await user.type(screen.getByLabelText('Headers'), 'no colon here');
    await user.click(screen.getByRole('button', { name: 'Save' }));

    expect(screen.getAllByTestId('field-error').map((e) => e.textContent)).toEqual([
      'Another server already has this name.',
      'Enter an http:// or https:// URL.',
      '“no colon here” is not Name: value.',
    ]);
    expect(screen.getByLabelText(/^Name/)).toHaveFocus();
    expect(backend.callsTo('add_server')).toEqual([]);

    backend.fail('add_server', { kind: 'invalid_input', message: 'server "web": "url" must be an http(s) URL' });
    await user.clear(screen.getByLabelText(/^Name/));
    await user.type(screen.getByLabelText(/^Name/), 'web');
    await user.clear(screen.getByLabelText(/^URL/));
    await user.type(screen.getByLabelText(/^URL/), 'https://mcp.example/mcp');
    await user.clear(screen.getByLabelText('Headers'));
    await user.click(screen.getByRole('button', { name: 'Save' }));

    const failure = await screen.findByTestId('server-form-failure');
    expect(failure).toHaveTextContent('Invalid input');
    expect(failure).toHaveTextContent('server "web": "url" must be an http(s) URL');
    expect(screen.getByTestId('server-form')).toBeInTheDocument();
  });

  test('edits a server in place, keeping its id', async () => {
    const backend = installFakeBackend([], { servers: [remote()] });
    const user = userEvent.setup();
    render(ServersSettings);
    await screen.findAllByTestId('server-row');

    await user.click(screen.getByRole('button', { name: 'Edit remote' }));
    expect(screen.getByLabelText('Remote (streamable HTTP)')).toBeChecked();
    expect(screen.getByLabelText('Headers')).toHaveValue('Authorization: Bearer abc');
    await user.click(screen.getByLabelText('Remote (legacy SSE)'));
    await user.clear(screen.getByLabelText(/^URL/));
    await user.type(screen.getByLabelText(/^URL/), 'http://127.0.0.1:3001/sse');
    await user.click(screen.getByRole('button', { name: 'Save' }));

    const [call] = backend.callsTo('update_server');
    expect(call).toMatchObject({
      id: backend.servers()[0]!.id,
      input: { name: 'remote', transport: { type: 'sse', url: 'http://127.0.0.1:3001/sse', headers: { Authorization: 'Bearer abc' } } },
    });
    expect(within(row('remote')).getByText('http://127.0.0.1:3001/sse (SSE)')).toBeInTheDocument();
  });

  test('editing keeps inheritEnv and allowPrivate, and the form says what a server receives', async () => {
    const shared = serverRecord({ name: 'shared', inheritEnv: ['LANG'], allowPrivate: true });
    const backend = installFakeBackend([], { servers: [shared] });
    const user = userEvent.setup();
    render(ServersSettings);
    await screen.findAllByTestId('server-row');

    await user.click(screen.getByRole('button', { name: 'Edit shared' }));
    const inherit = screen.getByLabelText('Also pass from Switchboard’s environment');
    expect(inherit).toHaveValue('LANG');
    expect(inherit).toHaveAccessibleDescription(/only HOME, LOGNAME, PATH, SHELL, TERM, USER and the variables above/);
    await user.type(inherit, '\nTZ');
    await user.click(screen.getByRole('button', { name: 'Save' }));

    const [call] = backend.callsTo('update_server');
    expect(call).toMatchObject({ input: { name: 'shared', inheritEnv: ['LANG', 'TZ'], allowPrivate: true } });
  });

  test('the switch disables and enables a server', async () => {
    const backend = installFakeBackend([], { servers: [everything()] });
    const user = userEvent.setup();
    render(ServersSettings);
    const toggle = await screen.findByRole('switch', { name: 'Use everything' });
    expect(toggle).toHaveAttribute('aria-checked', 'true');

    await user.click(toggle);
    expect(toggle).toHaveAttribute('aria-checked', 'false');
    expect(within(row('everything')).getByTestId('server-status')).toHaveTextContent('Disabled');
    expect(backend.servers()[0]!.config.enabled).toBe(false);

    toggle.focus();
    await user.keyboard(' ');
    expect(toggle).toHaveAttribute('aria-checked', 'true');
  });

  test('removing asks first; cancel keeps the server, confirm removes it', async () => {
    const record = everything();
    const backend = installFakeBackend([], { servers: [record] });
    const user = userEvent.setup();
    render(ServersSettings);
    await user.click(await screen.findByRole('button', { name: 'Remove everything' }));
    const dialog = screen.getByRole('alertdialog');
    expect(dialog).toHaveTextContent('Remove “everything”?');
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus();

    await user.keyboard('{Enter}');
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(screen.getByRole('button', { name: 'Remove everything' })).toHaveFocus();
    expect(backend.callsTo('remove_server')).toEqual([]);

    await user.click(screen.getByRole('button', { name: 'Remove everything' }));
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Remove' }));
    expect(backend.callsTo('remove_server')).toEqual([{ id: record.id }]);
    expect(await screen.findByTestId('servers-empty')).toBeInTheDocument();
  });

  test('paste-import shows each command before anything is imported', async () => {
    const backend = installFakeBackend([], { servers: [everything()] });
    const user = userEvent.setup();
    render(ServersSettings);
    await screen.findAllByTestId('server-row');
    await user.click(screen.getByRole('button', { name: 'Import…' }));

    const json = JSON.stringify({
      mcpServers: {
        everything: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] },
        time: { command: 'uvx', args: ['mcp-server-time'] },
        web: { type: 'sse', url: 'http://127.0.0.1:9/sse' },
      },
    });
    await user.click(screen.getByLabelText('Configuration JSON'));
    await user.paste(json);
    await user.click(screen.getByRole('button', { name: 'Preview' }));

    const preview = await screen.findByTestId('import-preview');
    const lines = within(preview).getAllByRole('row').slice(1).map((r) => [...r.children].map((c) => c.textContent));
    expect(lines).toEqual([
      ['everything', 'Skip (exists)', 'npx -y @modelcontextprotocol/server-everything'],
      ['time', 'Add', 'uvx mcp-server-time'],
      ['web', 'Add', 'http://127.0.0.1:9/sse (SSE)'],
    ]);
    expect(backend.callsTo('import_servers')).toEqual([]);

    await user.click(screen.getByLabelText('Replace servers that have the same name'));
    expect(screen.queryByTestId('import-preview')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Preview' }));
    await user.click(await screen.findByRole('button', { name: 'Import 3 server(s)' }));

    expect(backend.callsTo('import_servers')).toEqual([{ json, replace: true }]);
    expect(screen.getByTestId('import-report')).toHaveTextContent('Imported: 2 added, 1 replaced, 0 skipped.');
    expect((await screen.findAllByTestId('server-row')).map((r) => r.dataset.name)).toEqual(['everything', 'time', 'web']);
  });

  test('the import preview shows what widens a server’s trust', async () => {
    installFakeBackend();
    const user = userEvent.setup();
    render(ServersSettings);
    await user.click(screen.getByRole('button', { name: 'Import…' }));
    await user.click(screen.getByLabelText('Configuration JSON'));
    await user.paste('{"mcpServers": {"web": {"url": "https://example.com/mcp", "approval": "allow"}}}');
    await user.click(screen.getByRole('button', { name: 'Preview' }));
    const trust = await screen.findByTestId('import-trust');
    expect(trust).toHaveTextContent('⚠ approval: allow');
  });

  test('a broken paste shows the engine’s message', async () => {
    installFakeBackend();
    const user = userEvent.setup();
    render(ServersSettings);
    await user.click(screen.getByRole('button', { name: 'Import…' }));
    await user.click(screen.getByLabelText('Configuration JSON'));
    await user.paste('{"mcpServers": {"x": {"args": []}}}');
    await user.click(screen.getByRole('button', { name: 'Preview' }));
    expect(await screen.findByTestId('import-failure')).toHaveTextContent('server "x": "command" is missing');
  });

  test('export shows the mcpServers document', async () => {
    installFakeBackend([], { servers: [everything()] });
    const user = userEvent.setup();
    render(ServersSettings);
    await user.click(await screen.findByRole('button', { name: 'Export' }));
    const box = within(screen.getByTestId('server-export')).getByRole('textbox');
    expect(JSON.parse((box as HTMLTextAreaElement).value).mcpServers.everything.command).toBe('npx');
  });

  test('export leaves values blank and shows them only after a warning is confirmed', async () => {
    const github = everything();
    github.config.name = 'github';
    github.id = 'gh';
    github.config.transport = { type: 'stdio', command: 'npx', args: [], env: { GITHUB_TOKEN: 'ghp_fake_token' } };
    const backend = installFakeBackend([], { servers: [github] });
    const user = userEvent.setup();
    render(ServersSettings);
    await user.click(await screen.findByRole('button', { name: 'Export' }));
    const panel = screen.getByTestId('server-export');
    const box = () => (within(panel).getByRole('textbox') as HTMLTextAreaElement).value;
    expect(JSON.parse(box()).mcpServers.github.env).toEqual({ GITHUB_TOKEN: '' });
    await user.click(within(panel).getByRole('button', { name: 'Include secret values…' }));
    expect(screen.getByTestId('export-secrets-warning')).toHaveTextContent('in clear');
    expect(box()).not.toContain('ghp_fake_token');
    await user.click(within(panel).getByRole('button', { name: 'Show them in clear' }));
    await waitFor(() => expect(box()).toContain('ghp_fake_token'));
    expect(backend.callsTo('export_servers').map((a) => a.withSecrets)).toEqual([false, true]);
  });

  test('speaks Chinese', async () => {
    setLang('zh-CN');
    installFakeBackend([], { servers: [everything()] });
    render(ServersSettings);
    expect(await screen.findByRole('button', { name: '添加服务器' })).toBeInTheDocument();
    await screen.findAllByTestId('server-row');
    expect(within(row('everything')).getByTestId('server-status')).toHaveTextContent('正在启动…');
  });
});
