import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, expect, test } from 'vitest';
import App from '../App.svelte';
import { providers } from '../lib/providers.svelte';
import { servers } from '../lib/servers.svelte';
import { conversationHref, currentRoute, navigate } from '../lib/router.svelte';
import { conversation, installFakeBackend } from '../test/fakeBackend';
import { providerView } from '../test/fakeProviders';
import { serverRecord } from '../test/fakeServers';
import { resetAppState } from '../test/reset';

beforeEach(() => resetAppState());

test('without a provider the chat pane shows onboarding that leads to the provider settings', async () => {
  installFakeBackend();
  const user = userEvent.setup();
  render(App);

  expect(screen.getByTestId('chat-title')).toHaveTextContent('New chat');
  expect(screen.getByTestId('send-button')).toBeDisabled();
  expect(screen.getByTestId('composer-hint')).toHaveTextContent(
    'Add a model provider in Settings before sending messages.',
  );

  await user.click(await screen.findByRole('button', { name: 'Set up a provider' }));

  expect(currentRoute()).toEqual({ name: 'settings', tab: 'providers' });
  // Settings load on demand: on a busy machine the first transform of their chunk takes seconds.
  expect(await screen.findByRole('tab', { name: 'Providers' }, { timeout: 10000 })).toHaveAttribute('aria-selected', 'true');
});

test('an open chat asks for the providers once, and a provider added meanwhile ends onboarding and shows in the chat bar', async () => {
  const weather = conversation({ title: 'Weather' });
  const backend = installFakeBackend([weather], { extra: (cmd) => (cmd === 'tool_costs' ? [] : undefined) });
  navigate(conversationHref(weather.id));
  render(App);
  expect(await screen.findByTestId('onboarding')).toBeInTheDocument();

  await providers.add({ name: 'Local', preset: 'ollama', baseUrl: 'http://127.0.0.1:11434', headers: {} });

  await waitFor(() => expect(screen.queryByTestId('onboarding')).toBeNull());
  const select = await screen.findByTestId('provider-select');
  expect(within(select).getAllByRole('option').map((o) => o.textContent)).toEqual(['Local']);
  expect(screen.getByTestId('send-button')).toBeInTheDocument();
  expect(backend.callsTo('list_providers')).toHaveLength(1);
});

test('a new chat with no MCP server says the model has no tools and leads to the server settings; one server ends it', async () => {
  installFakeBackend([], { providers: [providerView({ name: 'On this computer', preset: 'local' })] });
  const user = userEvent.setup();
  const { unmount } = render(App);
  const hint = await screen.findByTestId('new-chat-hint');
  expect(hint).toHaveTextContent('The model has no tools yet.');
  await user.click(within(hint).getByRole('button', { name: 'Add an MCP server' }));
  expect(currentRoute()).toEqual({ name: 'settings', tab: 'servers' });
  unmount();

  resetAppState();
  installFakeBackend([], { providers: [providerView({ name: 'On this computer', preset: 'local' })], servers: [serverRecord({ name: 'time' })] });
  render(App);
  expect(await screen.findByTestId('send-button')).toBeInTheDocument();
  await screen.findByTestId('new-chat-model');
  await waitFor(() => expect(servers.loaded).toBe(true));
  expect(screen.queryByTestId('new-chat-hint')).toBeNull();
});
