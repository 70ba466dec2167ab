import { render, screen, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, test } from 'vitest';
import App from '../App.svelte';
import { getLang } from '../i18n/index.svelte';
import { currentRoute, navigate } from '../lib/router.svelte';
import { FAKE_APP_INFO, installFakeBackend } from '../test/fakeBackend';
import { resetAppState } from '../test/reset';

beforeEach(() => resetAppState());

describe('settings', () => {
  test('the settings link opens tabs for Providers, Assistants, MCP Servers, Knowledge, Local server, Models and General', async () => {
    installFakeBackend();
    const user = userEvent.setup();
    render(App);

    await user.click(screen.getByTestId('open-settings'));

    const tablist = await screen.findByRole('tablist');
    const tabs = within(tablist).getAllByRole('tab');
    expect(tabs.map((tab) => tab.textContent?.trim())).toEqual(['Providers', 'Assistants', 'MCP Servers', 'Knowledge', 'Local server', 'Models', 'General']);
    expect(tabs[0]).toHaveAttribute('aria-selected', 'true');
    expect(await screen.findByTestId('providers-empty')).toBeInTheDocument();

    await user.click(tabs[2]!);
    expect(currentRoute()).toEqual({ name: 'settings', tab: 'servers' });
    expect(screen.getByRole('tab', { name: 'MCP Servers' })).toHaveAttribute('aria-selected', 'true');
    expect(await screen.findByTestId('servers-empty')).toBeInTheDocument();
  });

  test('arrow keys move between tabs', async () => {
    installFakeBackend();
    const user = userEvent.setup();
    navigate('#/settings/providers');
    render(App);

    // Settings load on demand.
    (await screen.findByRole('tab', { name: 'Providers' })).focus();
    await user.keyboard('{ArrowRight}');
    expect(screen.getByRole('tab', { name: 'Assistants' })).toHaveFocus();
    await user.keyboard('{ArrowLeft}{ArrowLeft}');
    expect(screen.getByRole('tab', { name: 'General' })).toHaveFocus();
    expect(currentRoute()).toEqual({ name: 'settings', tab: 'general' });
  });

  test('General shows the app info from app_info', async () => {
    const backend = installFakeBackend();
    navigate('#/settings/general');
    render(App);

    expect(await screen.findByTestId('about-version')).toHaveTextContent(FAKE_APP_INFO.version);
    expect(screen.getByTestId('about-data-dir')).toHaveTextContent(FAKE_APP_INFO.dataDir);
    expect(screen.getByTestId('about-database')).toHaveTextContent(FAKE_APP_INFO.database);
    expect(backend.callsTo('app_info')).toHaveLength(1);
  });

  test('switching the language changes the rendered text, <html lang> and the saved choice', async () => {
    installFakeBackend();
    const user = userEvent.setup();
    navigate('#/settings/general');
    render(App);
    expect(screen.getByTestId('new-conversation')).toHaveTextContent('New chat');

    await user.selectOptions(await screen.findByTestId('language-select'), 'zh-CN');

    expect(getLang()).toBe('zh-CN');
    expect(screen.getByTestId('new-conversation')).toHaveTextContent('新对话');
    expect(screen.getByRole('tab', { name: '通用' })).toHaveAttribute('aria-selected', 'true');
    expect(screen.getByTestId('open-settings')).toHaveTextContent('设置');
    expect(document.documentElement.lang).toBe('zh-CN');
    expect(localStorage.getItem('switchboard.lang')).toBe('zh-CN');

    await user.selectOptions(screen.getByTestId('language-select'), 'en');
    expect(screen.getByTestId('new-conversation')).toHaveTextContent('New chat');
  });

  test('the theme setting writes data-theme on <html> and remembers it', async () => {
    installFakeBackend();
    const user = userEvent.setup();
    navigate('#/settings/general');
    render(App);
    const select = await screen.findByTestId('theme-select');
    expect(select).toHaveValue('system');
    expect(document.documentElement).not.toHaveAttribute('data-theme');

    await user.selectOptions(select, 'dark');
    expect(document.documentElement).toHaveAttribute('data-theme', 'dark');
    expect(localStorage.getItem('switchboard.theme')).toBe('dark');

    await user.selectOptions(select, 'light');
    expect(document.documentElement).toHaveAttribute('data-theme', 'light');

    await user.selectOptions(select, 'system');
    expect(document.documentElement).not.toHaveAttribute('data-theme');
    expect(localStorage.getItem('switchboard.theme')).toBe('system');
  });
});
