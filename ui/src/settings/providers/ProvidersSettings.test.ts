import { render, screen, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, test } from 'vitest';
import { setLang } from '../../i18n/index.svelte';
import { installFakeBackend } from '../../test/fakeBackend';
import { providerView } from '../../test/fakeProviders';
import { resetAppState } from '../../test/reset';
import ProvidersSettings from './ProvidersSettings.svelte';

beforeEach(() => resetAppState());

const card = (name: string) => screen.getByRole('article', { name });

describe('provider settings', () => {
  test('adds a provider from a preset; the key goes in and only its masked status comes back', async () => {
    const backend = installFakeBackend();
    const user = userEvent.setup();
    render(ProvidersSettings);
    await screen.findByTestId('providers-empty');

    await user.click(screen.getByRole('button', { name: 'Add provider' }));
    await user.selectOptions(screen.getByLabelText(/^Provider/), 'DeepSeek');
    expect(screen.getByLabelText(/^Name/)).toHaveValue('DeepSeek');
    expect(screen.getByLabelText(/^Base URL/)).toHaveValue('https://api.deepseek.com');
    const keyField = screen.getByLabelText(/^API key/);
    expect(keyField).toHaveAttribute('type', 'password');
    await user.type(keyField, 'sk-secret-1a2b');
    await user.click(within(screen.getByTestId('provider-form')).getByRole('button', { name: 'Add provider' }));

    expect(backend.callsTo('add_provider')).toEqual([
      { input: { name: 'DeepSeek', preset: 'deepseek', baseUrl: 'https://api.deepseek.com', headers: {}, apiKey: 'sk-secret-1a2b' } },
    ]);
    const added = await screen.findByRole('article', { name: 'DeepSeek' });
    expect(within(added).getByTestId('provider-key')).toHaveTextContent('API key: ••••1a2b (in the keychain)');
    expect(document.body.textContent).not.toContain('sk-secret');
    // A connection test runs at once after adding; this provider is unreachable in the fake.
    expect(await within(added).findByText(/The provider could not be reached/)).toBeInTheDocument();
  });

  test('the built-in model asks for neither a URL nor a key', async () => {
    const backend = installFakeBackend();
    const user = userEvent.setup();
    render(ProvidersSettings);
    await screen.findByTestId('providers-empty');
    await user.click(screen.getByRole('button', { name: 'Add provider' }));
    await user.selectOptions(screen.getByLabelText(/^Provider/), 'On this computer');
    expect(screen.getByLabelText(/^Name/)).toHaveValue('On this computer');
    expect(screen.queryByLabelText(/^Base URL/)).toBeNull();
    expect(screen.queryByLabelText(/^API key/)).toBeNull();
    await user.click(within(screen.getByTestId('provider-form')).getByRole('button', { name: 'Add provider' }));
    expect(backend.callsTo('add_provider')).toEqual([{ input: { name: 'On this computer', preset: 'local', headers: {} } }]);
    expect(await screen.findByRole('article', { name: 'On this computer' })).toBeInTheDocument();
  });

  test('the built-in model’s card says what it is instead of its name again, needs no key and has no key button; a server’s card keeps both', async () => {
    installFakeBackend([], {
      providers: [providerView({ name: 'On this computer', preset: 'local' }), providerView({ name: 'Ollama' })],
    });
    render(ProvidersSettings);
    const local = await screen.findByRole('article', { name: 'On this computer' });
    expect(within(local).getByTestId('provider-subtitle').textContent?.trim()).toBe('Built in (llama.cpp): runs GGUF models offline, on this computer');
    expect(within(local).getByTestId('provider-key')).toHaveTextContent('No API key: the model runs in this app, and nothing you send leaves this computer.');
    expect(within(local).queryByRole('button', { name: /key/i })).toBeNull();
    const ollama = card('Ollama');
    expect(within(ollama).getByTestId('provider-subtitle')).toHaveTextContent(/^Ollama · http:\/\//);
    expect(within(ollama).getByRole('button', { name: /key/i })).toBeInTheDocument();
  });

  test('the add form checks the preset, name, URL and required key', async () => {
    installFakeBackend([], { providers: [providerView({ name: 'Ollama' })] });
    const user = userEvent.setup();
    render(ProvidersSettings);
    await screen.findByRole('article', { name: 'Ollama' });
    await user.click(screen.getByRole('button', { name: 'Add provider' }));
    const form = screen.getByTestId('provider-form');
    await user.click(within(form).getByRole('button', { name: 'Add provider' }));
    expect(screen.getAllByTestId('field-error').map((e) => e.textContent)).toEqual(['Choose a provider.']);

    await user.selectOptions(screen.getByLabelText(/^Provider/), 'Ollama');
    expect(screen.getByLabelText(/^Name/)).toHaveValue('Ollama 2');
    await user.selectOptions(screen.getByLabelText(/^Provider/), 'OpenAI-compatible server');
    await user.click(within(form).getByRole('button', { name: 'Add provider' }));
    expect(screen.getAllByTestId('field-error').map((e) => e.textContent)).toEqual(['Enter an http:// or https:// URL.']);
    expect(screen.getByLabelText(/^Base URL/)).toHaveFocus();

    await user.selectOptions(screen.getByLabelText(/^Provider/), 'DeepSeek');
    await user.click(within(form).getByRole('button', { name: 'Add provider' }));
    expect(screen.getAllByTestId('field-error').map((e) => e.textContent)).toEqual(['This provider needs an API key.']);
  });

  test('test connection gives a clear result either way', async () => {
    const local = providerView({ name: 'Local' });
    const away = providerView({ name: 'Away', preset: 'openai-compatible', baseUrl: 'http://10.0.0.9:8000/v1' });
    installFakeBackend([], { providers: [local, away], models: { [local.provider.id]: [{ id: 'qwen3:8b', name: null }, { id: 'llama3.2', name: null }] } });
    const user = userEvent.setup();
    render(ProvidersSettings);

    await user.click(within(await screen.findByRole('article', { name: 'Local' })).getByRole('button', { name: 'Test connection' }));
    expect(within(card('Local')).getByRole('status')).toHaveTextContent('Connected: 2 models listed in 42 ms.');

    await user.click(within(card('Away')).getByRole('button', { name: 'Test connection' }));
    expect(within(card('Away')).getByRole('status')).toHaveTextContent(
      'The provider could not be reached — could not connect to http://10.0.0.9:8000/v1: connection refused',
    );
  });

  test('models are fetched on demand; tool mode and default model are saved per model', async () => {
    const local = providerView({ name: 'Local' });
    const backend = installFakeBackend([], { providers: [local], models: { [local.provider.id]: [{ id: 'qwen3:8b', name: 'Qwen3 8B' }, { id: 'llama3.2', name: null }] } });
    const user = userEvent.setup();
    render(ProvidersSettings);
    const models = within(await screen.findByRole('article', { name: 'Local' })).getByRole('button', { name: 'Models' });
    expect(models).toHaveAttribute('aria-expanded', 'false');

    await user.click(models);
    expect(models).toHaveAttribute('aria-expanded', 'true');
    const table = await screen.findByRole('table');
    expect(within(table).getAllByRole('rowheader').map((r) => r.textContent)).toEqual(['qwen3:8b · Qwen3 8B', 'llama3.2']);

    await user.selectOptions(screen.getByRole('combobox', { name: 'How llama3.2 calls tools' }), 'prompt');
    await user.click(screen.getByRole('radio', { name: 'Use qwen3:8b by default' }));

    const calls = backend.callsTo('set_provider_settings');
    expect(calls).toEqual([
      { id: local.provider.id, settings: { ...local.provider.settings, toolModes: { 'llama3.2': 'prompt' } } },
      { id: local.provider.id, settings: { ...local.provider.settings, toolModes: { 'llama3.2': 'prompt' }, defaultModel: 'qwen3:8b' } },
    ]);
    expect(screen.getByRole('combobox', { name: 'How llama3.2 calls tools' })).toHaveValue('prompt');
    expect(screen.getByRole('radio', { name: 'Use qwen3:8b by default' })).toBeChecked();
  });

  test('the key can be changed and forgotten; it is never displayed', async () => {
    const backend = installFakeBackend([], { providers: [providerView({ name: 'OpenAI', preset: 'openai' })] });
    const user = userEvent.setup();
    render(ProvidersSettings);
    const openai = await screen.findByRole('article', { name: 'OpenAI' });
    expect(within(openai).getByTestId('provider-key')).toHaveTextContent('No API key: this provider needs one.');

    await user.click(within(openai).getByRole('button', { name: 'Set the API key of OpenAI' }));
    expect(within(openai).getByLabelText('API key')).toHaveFocus();
    await user.keyboard('sk-new-key-9z9z{Enter}');
    expect(within(openai).getByTestId('provider-key')).toHaveTextContent('API key: ••••9z9z (in the keychain)');
    expect(within(openai).queryByLabelText('API key')).toBeNull();

    await user.click(within(openai).getByRole('button', { name: 'Set the API key of OpenAI' }));
    expect(within(openai).getByLabelText('API key')).toHaveValue('');
    await user.click(within(openai).getByRole('button', { name: 'Forget stored key' }));
    expect(within(openai).getByTestId('provider-key')).toHaveTextContent('No API key');
    expect(backend.callsTo('set_provider_key').map((c) => c.key)).toEqual(['sk-new-key-9z9z', null]);
  });

  test('removing asks first', async () => {
    const view = providerView({ name: 'Local' });
    const backend = installFakeBackend([], { providers: [view] });
    const user = userEvent.setup();
    render(ProvidersSettings);
    await user.click(await screen.findByRole('button', { name: 'Remove Local' }));
    expect(screen.getByRole('alertdialog')).toHaveTextContent('Remove “Local” and its stored key?');
    expect(backend.callsTo('remove_provider')).toEqual([]);
    await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Remove' }));
    expect(backend.callsTo('remove_provider')).toEqual([{ id: view.provider.id }]);
    expect(await screen.findByTestId('providers-empty')).toBeInTheDocument();
  });

  test('speaks Chinese', async () => {
    setLang('zh-CN');
    installFakeBackend([], { providers: [providerView({ name: 'Local' })] });
    render(ProvidersSettings);
    const local = await screen.findByRole('article', { name: 'Local' });
    expect(within(local).getByRole('button', { name: '测试连接' })).toBeInTheDocument();
    expect(within(local).getByTestId('provider-key')).toHaveTextContent('没有 API 密钥（本地服务器不需要）。');
  });
});
