import { render, screen, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, test } from 'vitest';
import { setLang } from '../../i18n/index.svelte';
import { installFakeBackend } from '../../test/fakeBackend';
import { providerView } from '../../test/fakeProviders';
import { resetAppState } from '../../test/reset';
import GeneralSettings from './GeneralSettings.svelte';

beforeEach(() => resetAppState());

describe('the roots', () => {
  test('lists the folders, adds one and removes one, each through set_roots', async () => {
    const backend = installFakeBackend([], { roots: ['/home/me/notes'] });
    const user = userEvent.setup();
    render(GeneralSettings);
    const card = screen.getByTestId('roots-settings');
    expect(await within(card).findByText('/home/me/notes')).toBeInTheDocument();
    expect(card).toHaveTextContent('notes');

    await user.type(within(card).getByLabelText('Folder to add'), '/home/me/My Projects{Enter}');
    expect(backend.callsTo('set_roots')).toEqual([{ folders: ['/home/me/notes', '/home/me/My Projects'] }]);
    expect(await within(card).findByText('/home/me/My Projects')).toBeInTheDocument();
    expect(within(card).getByLabelText('Folder to add')).toHaveValue('');

    await user.click(within(card).getByRole('button', { name: 'Remove /home/me/notes' }));
    expect(backend.callsTo('set_roots')[1]).toEqual({ folders: ['/home/me/My Projects'] });
    expect(within(card).queryByText('/home/me/notes')).toBeNull();
    expect(backend.capabilities.roots).toEqual(['/home/me/My Projects']);
  });

  test('a folder the engine refuses stays in the field with the reason', async () => {
    installFakeBackend();
    const user = userEvent.setup();
    render(GeneralSettings);
    const card = screen.getByTestId('roots-settings');
    await within(card).findByTestId('roots-empty');
    const field = within(card).getByLabelText('Folder to add');
    await user.type(field, 'relative/dir');
    await user.click(within(card).getByRole('button', { name: 'Add folder' }));
    expect(await within(card).findByRole('alert')).toHaveTextContent('root "relative/dir" is not an absolute path');
    expect(field).toHaveValue('relative/dir');
    expect(field).toHaveAttribute('aria-invalid', 'true');
    expect(field).toHaveFocus();
  });
});

describe('the sampling model', () => {
  const local = () => providerView({ name: 'Local Ollama', settings: { defaultModel: 'qwen3:8b' } });

  test('shows the current choice and saves a new one', async () => {
    const view = local();
    const backend = installFakeBackend([], { providers: [view], sampling: { provider: view.provider.id, model: 'llama3.2' } });
    const user = userEvent.setup();
    render(GeneralSettings);
    const card = screen.getByTestId('sampling-settings');
    expect(await within(card).findByText('Now: Local Ollama · llama3.2')).toBeInTheDocument();
    expect(within(card).getByLabelText('Provider')).toHaveValue(view.provider.id);
    expect(within(card).getByLabelText('Model')).toHaveValue('llama3.2');

    await user.clear(within(card).getByLabelText('Model'));
    await user.type(within(card).getByLabelText('Model'), 'qwen3:4b');
    await user.click(within(card).getByRole('button', { name: 'Save' }));
    expect(backend.callsTo('set_sampling_model')).toEqual([{ choice: { provider: view.provider.id, model: 'qwen3:4b' } }]);
    expect(await within(card).findByText('Saved.')).toBeInTheDocument();
  });

  test('a provider’s default model is used when the field is left empty, and "Use none" clears', async () => {
    const view = local();
    const backend = installFakeBackend([], { providers: [view] });
    const user = userEvent.setup();
    render(GeneralSettings);
    const card = screen.getByTestId('sampling-settings');
    expect(within(card).getByTestId('sampling-current')).toHaveTextContent('None chosen');
    await within(card).findByRole('option', { name: 'Local Ollama' });
    await user.selectOptions(within(card).getByLabelText('Provider'), 'Local Ollama');
    expect(within(card).getByLabelText('Model')).toHaveAttribute('placeholder', 'qwen3:8b');
    await user.click(within(card).getByRole('button', { name: 'Save' }));
    expect(backend.capabilities.sampling).toEqual({ provider: view.provider.id, model: 'qwen3:8b' });

    await user.click(within(card).getByRole('button', { name: 'Use none' }));
    expect(backend.callsTo('set_sampling_model')[1]).toEqual({ choice: null });
    expect(within(card).getByTestId('sampling-current')).toHaveTextContent('None chosen');
  });

  test('speaks Simplified Chinese', async () => {
    setLang('zh-CN');
    installFakeBackend();
    render(GeneralSettings);
    expect(screen.getByRole('heading', { name: '用于服务器采样请求的模型' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: '服务器可使用的文件夹（根目录）' })).toBeInTheDocument();
  });
});
