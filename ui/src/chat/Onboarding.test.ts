import { render, screen, waitFor } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, expect, test } from 'vitest';
import App from '../App.svelte';
import type { LocalOllama } from '../bindings';
import { installFakeBackend } from '../test/fakeBackend';
import { localModel } from '../test/fakeModels';
import { resetAppState } from '../test/reset';

beforeEach(() => resetAppState());

const OLLAMA: LocalOllama = { baseUrl: 'http://127.0.0.1:11434', models: ['llama3.2:1b', 'qwen3:0.6b'] };

test('a local Ollama is offered in one click: added with its first model as the default, and the chat can start', async () => {
  const backend = installFakeBackend([], { extra: (cmd) => (cmd === 'detect_ollama' ? OLLAMA : cmd === 'tool_costs' ? [] : undefined) });
  const user = userEvent.setup();
  render(App);
  const found = await screen.findByTestId('ollama-found');
  expect(found).toHaveTextContent('Ollama is running on this computer with 2 models (first: llama3.2:1b).');

  await user.click(screen.getByRole('button', { name: 'Use Ollama' }));

  await waitFor(() => expect(screen.queryByTestId('onboarding')).toBeNull());
  expect(backend.callsTo('add_provider')).toEqual([
    { input: { name: 'Ollama', preset: 'ollama', baseUrl: 'http://127.0.0.1:11434', headers: {} } },
  ]);
  expect(backend.callsTo('set_provider_settings')[0]).toMatchObject({ settings: { preset: 'ollama', defaultModel: 'llama3.2:1b' } });
  await user.type(screen.getByTestId('composer'), 'hello');
  expect(screen.getByTestId('send-button')).toBeEnabled();
});

test('an Ollama without models is still offered, with the command to pull one', async () => {
  installFakeBackend([], { extra: (cmd) => (cmd === 'detect_ollama' ? { ...OLLAMA, models: [] } : undefined) });
  render(App);
  expect(await screen.findByTestId('ollama-found')).toHaveTextContent('ollama pull llama3.2');
});

test('without a local Ollama only the way to the provider settings is shown', async () => {
  const backend = installFakeBackend([], { extra: (cmd) => (cmd === 'detect_ollama' ? null : undefined) });
  render(App);
  await screen.findByRole('button', { name: 'Set up a provider' });
  await waitFor(() => expect(backend.callsTo('detect_ollama')).toHaveLength(1));
  expect(screen.queryByTestId('ollama-found')).toBeNull();
  expect(screen.queryByRole('button', { name: 'Use Ollama' })).toBeNull();
});

test('adding Ollama that the engine refuses says why and keeps the onboarding', async () => {
  const backend = installFakeBackend([], { extra: (cmd) => (cmd === 'detect_ollama' ? OLLAMA : undefined) });
  backend.fail('add_provider', { kind: 'secrets', message: 'no keyring' });
  const user = userEvent.setup();
  render(App);
  await user.click(await screen.findByRole('button', { name: 'Use Ollama' }));
  expect(await screen.findByRole('alert')).toHaveTextContent('no keyring');
  expect(screen.getByTestId('onboarding')).toBeInTheDocument();
});

test('a model on this computer is offered: its first model becomes the built-in default and the chat can start', async () => {
  const backend = installFakeBackend([], {
    localModels: [localModel('SmolLM2-135M-Instruct.Q4_1.gguf'), localModel('Tiny.gguf')],
    extra: (cmd) => (cmd === 'detect_ollama' ? null : cmd === 'tool_costs' ? [] : undefined),
  });
  const user = userEvent.setup();
  render(App);
  await user.click(await screen.findByRole('button', { name: 'Use a model on this computer' }));

  await waitFor(() => expect(screen.queryByTestId('onboarding')).toBeNull());
  expect(backend.callsTo('set_default_local_model')).toEqual([{ name: 'SmolLM2-135M-Instruct.Q4_1.gguf' }]);
  expect([...backend.providers.views.values()][0]!.provider.settings.defaultModel).toBe('SmolLM2-135M-Instruct.Q4_1.gguf');
  await user.type(screen.getByTestId('composer'), 'hello');
  expect(screen.getByTestId('send-button')).toBeEnabled();
});

test('with no model on this computer the onboarding points to Settings → Models', async () => {
  const backend = installFakeBackend([], { extra: (cmd) => (cmd === 'detect_ollama' ? null : undefined) });
  const user = userEvent.setup();
  render(App);
  await user.click(await screen.findByRole('button', { name: 'Use a model on this computer' }));

  expect(await screen.findByTestId('no-local-model')).toHaveTextContent('add one in Settings → Models');
  expect(backend.callsTo('set_default_local_model')).toEqual([]);
  await user.click(screen.getByRole('button', { name: 'Open Settings → Models' }));
  expect(await screen.findByTestId('models-settings')).toBeInTheDocument();
});
