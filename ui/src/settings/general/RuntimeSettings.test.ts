import { render, screen, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, test } from 'vitest';
import { setLang } from '../../i18n/index.svelte';
import { installFakeBackend } from '../../test/fakeBackend';
import { resetAppState } from '../../test/reset';
import RuntimeSettings from './RuntimeSettings.svelte';

beforeEach(() => resetAppState());

describe('Settings → Runtimes', () => {
  test('says what each runtime is for and what it downloads, installs one and removes it', async () => {
    const backend = installFakeBackend();
    const user = userEvent.setup();
    render(RuntimeSettings);
    const card = screen.getByTestId('runtime-settings');
    const uv = await within(card).findByTestId('runtime-uv');
    expect(uv).toHaveTextContent('Not installed · for uvx servers · about 18 MB from https://pypi.org');
    expect(within(card).getByTestId('runtime-node')).toHaveTextContent('for npx servers · about 60 MB');

    await user.click(within(card).getByRole('button', { name: 'Install uv' }));
    expect(backend.callsTo('install_runtime')).toEqual([{ name: 'uv' }]);
    expect(await within(card).findByText('0.13.9 · used by uvx servers when your computer has none')).toBeInTheDocument();

    await user.click(within(card).getByRole('button', { name: 'Remove uv' }));
    expect(backend.callsTo('remove_runtime')).toEqual([{ name: 'uv' }]);
    expect(await within(card).findByRole('button', { name: 'Install uv' })).toBeInTheDocument();
  });

  test('a mirror, an npm registry and a proxy are saved together; empty fields clear them', async () => {
    const backend = installFakeBackend();
    const user = userEvent.setup();
    render(RuntimeSettings);
    const card = screen.getByTestId('runtime-settings');
    const index = await within(card).findByLabelText('Package index (a PyPI mirror)');
    await user.clear(index);
    await user.type(index, 'https://pypi.tuna.tsinghua.edu.cn');
    await user.type(within(card).getByLabelText('npm registry'), 'https://registry.npmmirror.com');
    await user.type(within(card).getByLabelText('HTTP proxy'), 'http://127.0.0.1:7890{Enter}');
    expect(backend.callsTo('set_package_sources')).toEqual([
      { index: 'https://pypi.tuna.tsinghua.edu.cn', npmRegistry: 'https://registry.npmmirror.com', proxy: 'http://127.0.0.1:7890' },
    ]);
    await expect.poll(() => within(card).getByTestId('runtime-node').textContent).toContain('from https://pypi.tuna.tsinghua.edu.cn');
    await user.clear(index);
    await user.clear(within(card).getByLabelText('HTTP proxy'));
    await user.click(within(card).getByRole('button', { name: 'Save' }));
    expect(backend.callsTo('set_package_sources')[1]).toEqual({ index: null, npmRegistry: 'https://registry.npmmirror.com', proxy: null });
  });

  test('an install that fails says why, in Chinese too', async () => {
    setLang('zh-CN');
    const backend = installFakeBackend();
    backend.fail('install_runtime', { kind: 'invalid_input', message: 'uv does not match the index SHA-256; nothing was installed' });
    const user = userEvent.setup();
    render(RuntimeSettings);
    const card = screen.getByTestId('runtime-settings');
    await user.click(await within(card).findByRole('button', { name: '安装 Node.js' }));
    expect(await within(card).findByRole('alert')).toHaveTextContent('nothing was installed');
    expect(within(card).getByTestId('runtime-node')).toHaveTextContent('未安装');
  });
});
