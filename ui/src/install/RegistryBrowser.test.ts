import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, test } from 'vitest';
import type { InstallOption, RegistryEntry, RegistryPage } from '../bindings';
import { installFakeBackend } from '../test/fakeBackend';
import { resetAppState } from '../test/reset';
import RegistryBrowser from './RegistryBrowser.svelte';

beforeEach(() => resetAppState());

const entry = (name: string, more: Partial<RegistryEntry> = {}): RegistryEntry => ({
  name,
  description: `The ${name} server`,
  version: '1.0.0',
  packages: [{ registryType: 'npm', identifier: name, version: '1.0.0', runtimeArguments: [], packageArguments: [], environmentVariables: [] }],
  remotes: [],
  ...more,
});

const db = entry('io.github.example/database-manager', {
  repository: { url: 'https://github.com/example/db', source: 'github' },
  packages: [
    {
      registryType: 'oci',
      identifier: 'example/db',
      version: '2.0',
      runtimeArguments: [],
      packageArguments: [],
      environmentVariables: [{ name: 'DB_PASSWORD', isRequired: true, isSecret: true, choices: [], variables: {} }],
    },
  ],
});

const dbOption: InstallOption = {
  id: 'package:0',
  label: 'oci example/db 2.0',
  runtime: 'docker',
  fields: [
    { key: 'DB_PASSWORD', target: 'env', required: true, secret: true, choices: [] },
    { key: 'DB_TYPE', target: 'env', required: true, secret: false, default: 'postgres', choices: ['postgres', 'mysql'] },
    { key: 'LABEL', target: 'env', description: '<img src=x onerror=alert(1)>', required: false, secret: false, choices: [] },
  ],
};

const pages: Record<string, RegistryPage> = {
  first: { registry: 'http://127.0.0.1:1', query: '', entries: [db, entry('a/one')], nextCursor: 'c2', cached: false, fetchedAt: 0 },
  second: { registry: 'http://127.0.0.1:1', query: '', entries: [entry('b/two')], cached: false, fetchedAt: 0 },
};

function backend(options: { offline?: boolean; docker?: string } = {}) {
  return installFakeBackend([], {
    extra: (cmd, args) => {
      if (cmd === 'registry_search') {
        if (options.offline) throw { kind: 'io', message: 'the MCP Registry at http://127.0.0.1:1 could not be reached: refused' };
        if (args.query === 'one') return { ...pages.first!, query: 'one', entries: [entry('a/one')], nextCursor: undefined };
        return args.cursor === 'c2' ? pages.second : pages.first;
      }
      if (cmd === 'registry_url') return 'http://127.0.0.1:1';
      if (cmd === 'set_registry_url') return null;
      if (cmd === 'registry_cached') return { ...pages.first!, cached: true, fetchedAt: Date.UTC(2026, 0, 2) };
      if (cmd === 'registry_install_options') return [dbOption];
      if (cmd === 'plan_registry_install')
        return { serverName: 'database-manager', commandLine: 'docker run', command: 'docker', args: ['run', '-i', '--rm', 'example/db:2.0'], envNames: ['DB_PASSWORD', 'DB_TYPE'], headerNames: [], runtime: { program: 'docker', found: options.docker, hint: 'install Docker Engine or Docker Desktop' }, config: {}, digest: 'sha256:p0' };
      if (cmd === 'install_from_registry') return { record: { id: 's9', config: { name: 'database-manager' } }, tools: [{ name: 'query' }, { name: 'tables' }] };
      if (cmd === 'list_servers') return [];
      return undefined;
    },
  });
}

const names = () => screen.getAllByTestId('registry-entry').map((e) => e.dataset.name);

describe('the registry browser', () => {
  test('lists the first page with each entry’s version, transport, runtime and secrets, and pages by cursor', async () => {
    const fake = backend();
    render(RegistryBrowser, { onclose: () => {} });
    await waitFor(() => expect(names()).toEqual([db.name, 'a/one']));
    const card = screen.getAllByTestId('registry-entry')[0]!;
    expect(card).toHaveTextContent('v1.0.0');
    expect(within(card).getByTestId('entry-transport')).toHaveTextContent('Transport: stdio');
    expect(within(card).getByTestId('entry-runtime')).toHaveTextContent('Needs docker');
    expect(within(card).getByTestId('entry-secrets')).toHaveTextContent('Secrets: DB_PASSWORD');
    expect(within(card).getByRole('button', { name: 'Repository' })).toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(names()).toEqual(['b/two']));
    expect(screen.getByTestId('registry-page')).toHaveTextContent('Page 2');
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();
    await userEvent.click(screen.getByRole('button', { name: 'Previous' }));
    await waitFor(() => expect(names()).toEqual([db.name, 'a/one']));
    expect(fake.callsTo('registry_search')).toEqual([
      { query: '', cursor: null },
      { query: '', cursor: 'c2' },
      { query: '', cursor: null },
    ]);

    await userEvent.type(screen.getByTestId('registry-search'), 'one{Enter}');
    await waitFor(() => expect(names()).toEqual(['a/one']));
  });

  test('the registry URL is a setting: changing it saves it and searches the new registry', async () => {
    const fake = backend();
    render(RegistryBrowser, { onclose: () => {} });
    const url = await screen.findByTestId('registry-url');
    await waitFor(() => expect(url).toHaveValue('http://127.0.0.1:1'));
    await userEvent.clear(url);
    await userEvent.type(url, 'https://registry.example.org');
    await userEvent.click(screen.getByTestId('registry-url-use'));
    await waitFor(() => expect(fake.callsTo('set_registry_url')).toEqual([{ url: 'https://registry.example.org' }]));
    await waitFor(() => expect(fake.callsTo('registry_search')).toHaveLength(2));
  });

  test('offline, shows why and the cached listing, said to be cached', async () => {
    backend({ offline: true });
    render(RegistryBrowser, { onclose: () => {} });
    expect(await screen.findByTestId('registry-error')).toHaveTextContent('could not be reached');
    expect(screen.getByTestId('registry-cached')).toHaveTextContent('Offline: this is the listing kept from');
    expect(names()).toEqual([db.name, 'a/one']);
  });

  test('a search tried again after a failure shows that it is asking, not the old error beside it', async () => {
    let answer: ((page: RegistryPage) => void) | undefined;
    installFakeBackend([], {
      extra: (cmd, args) => {
        if (cmd === 'registry_search') {
          if (args.query !== 'one') throw { kind: 'io', message: 'the MCP Registry could not be reached: refused' };
          return new Promise<RegistryPage>((resolve) => (answer = resolve));
        }
        if (cmd === 'registry_url') return 'http://127.0.0.1:1';
        if (cmd === 'registry_cached') return null;
        return undefined;
      },
    });
    render(RegistryBrowser, { onclose: () => {} });
    expect(await screen.findByTestId('registry-error')).toHaveTextContent('could not be reached');
    await userEvent.type(screen.getByTestId('registry-search'), 'one{Enter}');
    expect(await screen.findByText('Asking the registry…')).toBeInTheDocument();
    expect(screen.queryByTestId('registry-error')).toBeNull();
    answer!({ ...pages.first!, query: 'one' });
    await waitFor(() => expect(names()).toEqual([db.name, 'a/one']));
    expect(screen.queryByText('Asking the registry…')).toBeNull();
  });

  test('the install form masks secrets, offers choices, fills defaults, enforces required values, then shows the exact command', async () => {
    const fake = backend();
    render(RegistryBrowser, { onclose: () => {} });
    await waitFor(() => expect(names()).toContain(db.name));
    await userEvent.click(screen.getByRole('button', { name: `Install ${db.name}` }));
    const password = await screen.findByLabelText(/DB_PASSWORD/);
    expect(password).toHaveAttribute('type', 'password');
    const choice = screen.getByLabelText(/DB_TYPE/) as HTMLSelectElement;
    expect(choice.tagName).toBe('SELECT');
    expect(choice.value).toBe('postgres');
    // The registry's text is shown as text, never as HTML.
    expect(screen.getByText('<img src=x onerror=alert(1)>')).toBeInTheDocument();
    expect(document.querySelector('img')).toBeNull();

    await userEvent.click(screen.getByTestId('install-review'));
    expect(screen.getByTestId('install-missing')).toHaveTextContent('Fill in: DB_PASSWORD');
    expect(fake.callsTo('plan_registry_install')).toEqual([]);

    await userEvent.type(password, 'hunter2');
    await userEvent.click(screen.getByTestId('install-review'));
    const plan = await screen.findByTestId('install-plan');
    expect(within(plan).getByTestId('preview-command')).toHaveTextContent('docker');
    expect(within(plan).getByTestId('preview-args')).toHaveTextContent('run-i--rmexample/db:2.0');
    expect(within(plan).getByTestId('preview-env')).toHaveTextContent('DB_PASSWORD, DB_TYPE');
    expect(within(plan).getByTestId('runtime-check')).toHaveTextContent('docker is not installed: install Docker Engine or Docker Desktop');
    expect(screen.getByTestId('install-now')).toBeDisabled();
    expect(fake.callsTo('plan_registry_install')).toEqual([{ entry: db, request: { option: 'package:0', values: { DB_PASSWORD: 'hunter2', DB_TYPE: 'postgres' } } }]);

    // Changing a value hides the plan made for the old values; leaving a field does not.
    password.blur();
    expect(screen.getByTestId('install-plan')).toBeInTheDocument();
    await userEvent.selectOptions(choice, 'mysql');
    expect(screen.queryByTestId('install-plan')).toBeNull();
    expect(screen.getByTestId('install-review')).toBeEnabled();
  });

  test('with its runtime found, Install saves and starts the server and lists its tools', async () => {
    const fake = backend({ docker: '/usr/bin/docker' });
    render(RegistryBrowser, { onclose: () => {} });
    await waitFor(() => expect(names()).toContain(db.name));
    await userEvent.click(screen.getByRole('button', { name: `Install ${db.name}` }));
    await userEvent.type(await screen.findByLabelText(/DB_PASSWORD/), 'hunter2');
    await userEvent.click(screen.getByTestId('install-review'));
    expect(await screen.findByTestId('runtime-check')).toHaveTextContent('docker found at /usr/bin/docker');
    expect(fake.callsTo('install_from_registry')).toEqual([]);
    await userEvent.click(screen.getByTestId('install-now'));
    expect(await screen.findByTestId('install-result')).toHaveTextContent('Its tools: query, tables');
    expect(fake.callsTo('install_from_registry')).toEqual([{ entry: db, request: { option: 'package:0', values: { DB_PASSWORD: 'hunter2', DB_TYPE: 'postgres' } }, digest: 'sha256:p0' }]);
  });
});
