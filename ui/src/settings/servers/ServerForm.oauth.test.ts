import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, test } from 'vitest';
import { installFakeBackend } from '../../test/fakeBackend';
import { clientSecrets, serverRecord } from '../../test/fakeServers';
import { resetAppState } from '../../test/reset';
import ServersSettings from './ServersSettings.svelte';

beforeEach(() => {
  resetAppState();
  clientSecrets.clear();
});

const corp = () =>
  serverRecord({
    name: 'corp',
    transport: { type: 'http', url: 'https://mcp.corp.test/mcp', headers: {} },
    oauth: { clientId: 'svc-42', grant: 'client_credentials', scopes: ['read', 'write'], signingAlgorithm: 'ES256' },
  });

describe('the OAuth settings of a remote server', () => {
  test('keep what was configured when the server is edited, and send a new secret only to the keychain', async () => {
    const backend = installFakeBackend([], { servers: [corp()] });
    const user = userEvent.setup();
    render(ServersSettings);
    await screen.findAllByTestId('server-row');
    await user.click(screen.getByRole('button', { name: 'Edit corp' }));

    expect(screen.getByLabelText('How to sign in')).toHaveValue('client_credentials');
    expect(screen.getByLabelText(/^Client ID/)).toHaveValue('svc-42');
    expect(screen.getByLabelText('Scopes (separated by spaces)')).toHaveValue('read write');
    expect(screen.getByLabelText('Client authentication')).toHaveValue('ES256');
    expect(screen.getByLabelText(/^Client secret or private key/)).toHaveValue('');

    await user.click(screen.getByLabelText(/^Client secret or private key/));
    await user.paste('pem-very-secret');
    await user.click(screen.getByRole('button', { name: 'Save' }));

    const [update] = backend.callsTo('update_server');
    expect(update).toMatchObject({
      input: { name: 'corp', oauth: { clientId: 'svc-42', grant: 'client_credentials', scopes: ['read', 'write'], signingAlgorithm: 'ES256' } },
    });
    expect(JSON.stringify(update)).not.toContain('pem-very-secret');
    expect(backend.callsTo('set_server_client_secret')).toEqual([{ id: 'corp', secret: 'pem-very-secret' }]);
    expect(clientSecrets.get('corp')).toBe('pem-very-secret');
  }, 20_000);

  test('say what is wrong: client credentials without a client id, a metadata URL that is not https', async () => {
    const backend = installFakeBackend([], { servers: [] });
    const user = userEvent.setup();
    render(ServersSettings);
    await user.click(await screen.findByRole('button', { name: /Add server/ }));
    await user.type(screen.getByLabelText(/^Name/), 'remote');
    await user.click(screen.getByLabelText('Remote (streamable HTTP)'));
    await user.type(screen.getByLabelText(/^URL/), 'https://mcp.example.test/mcp');
    await user.type(screen.getByLabelText(/^Client metadata document URL/), 'http://example.test/client.json');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(screen.getByText('Enter an https URL with a path.')).toBeInTheDocument();

    await user.selectOptions(screen.getByLabelText('How to sign in'), 'client_credentials');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(screen.getByText('Client credentials need a client ID.')).toBeInTheDocument();
    expect(backend.callsTo('add_server')).toEqual([]);

    await user.type(screen.getByLabelText(/^Client ID/), 'svc');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    const [add] = backend.callsTo('add_server');
    expect(add).toMatchObject({ input: { name: 'remote', oauth: { clientId: 'svc', grant: 'client_credentials' } } });
    expect((add as { input: { oauth: object } }).input.oauth).not.toHaveProperty('clientMetadataUrl');
  }, 20_000);
});
