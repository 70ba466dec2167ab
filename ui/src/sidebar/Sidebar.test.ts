import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import App from '../App.svelte';
import { currentRoute } from '../lib/router.svelte';
import { assistant } from '../test/fakeAssistants';
import { conversation, installFakeBackend } from '../test/fakeBackend';
import { providerView } from '../test/fakeProviders';
import { resetAppState } from '../test/reset';

// Noon on a Wednesday, local time: far from midnight so date groups are stable.
const NOON = new Date(2025, 5, 18, 12, 0, 0).getTime();
const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

function rows() {
  return screen.queryAllByTestId('conversation-row');
}

function row(id: string): HTMLElement {
  const found = rows().find((r) => r.dataset.id === id);
  if (!found) throw new Error(`no row ${id}`);
  return found;
}

function groupLabels(): string[] {
  const list = screen.getByRole('navigation', { name: 'Conversations' });
  return within(list)
    .getAllByRole('heading', { level: 2 })
    .map((h) => h.textContent ?? '');
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOON);
  resetAppState();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('the sidebar', () => {
  test('lists conversations from list_conversations with pinned ones first and the rest grouped by date', async () => {
    const backend = installFakeBackend([
      conversation({ id: 'old', title: 'Old one', updatedAt: NOON - 30 * DAY }),
      conversation({ id: 'today', title: 'Fresh', updatedAt: NOON - HOUR }),
      conversation({ id: 'pinned', title: 'Important', updatedAt: NOON - 40 * DAY, pinned: true }),
      conversation({ id: 'yesterday', title: '', updatedAt: NOON - DAY }),
      conversation({ id: 'week', title: 'Last week', updatedAt: NOON - 3 * DAY }),
    ]);
    render(App);

    await waitFor(() => expect(rows()).toHaveLength(5));
    expect(backend.callsTo('list_conversations')).toEqual([{ page: { limit: 50 }, scope: 'unfiled' }]);
    expect(rows().map((r) => r.dataset.id)).toEqual(['pinned', 'today', 'yesterday', 'week', 'old']);
    expect(groupLabels()).toEqual(['Pinned', 'Today', 'Yesterday', 'Previous 7 days', 'Older']);
    expect(within(row('yesterday')).getByRole('link')).toHaveTextContent('Untitled');
    expect(within(row('pinned')).getByTestId('pin-button')).toHaveAttribute('aria-pressed', 'true');
  });

  test('selecting a row opens the conversation and marks it as current', async () => {
    installFakeBackend([conversation({ id: 'a', title: 'Alpha' }), conversation({ id: 'b', title: 'Beta' })]);
    const user = userEvent.setup();
    render(App);

    await user.click(await screen.findByRole('link', { name: 'Beta' }));

    expect(currentRoute()).toEqual({ name: 'conversation', id: 'b' });
    expect(screen.getByRole('link', { name: 'Beta' })).toHaveAttribute('aria-current', 'page');
    expect(screen.getByRole('link', { name: 'Alpha' })).not.toHaveAttribute('aria-current');
    expect(screen.getByTestId('chat-title')).toHaveTextContent('Beta');
  });

  test('loads the next page with the cursor when Load more is pressed', async () => {
    const many = Array.from({ length: 60 }, (_, i) =>
      conversation({ id: `n${String(i).padStart(2, '0')}`, title: `Chat ${i}`, updatedAt: NOON - i * 1000 }),
    );
    const backend = installFakeBackend(many);
    const user = userEvent.setup();
    render(App);

    await waitFor(() => expect(rows()).toHaveLength(50));
    await user.click(screen.getByTestId('load-more'));

    await waitFor(() => expect(rows()).toHaveLength(60));
    expect(backend.callsTo('list_conversations')[1]).toEqual({ page: { limit: 50, cursor: 'n49' }, scope: 'unfiled' });
    expect(screen.queryByTestId('load-more')).not.toBeInTheDocument();
  });

  test('New chat creates a conversation, selects it and opens its rename input', async () => {
    const backend = installFakeBackend([conversation({ id: 'a', title: 'Alpha', updatedAt: NOON - HOUR })]);
    const user = userEvent.setup();
    render(App);
    await waitFor(() => expect(rows()).toHaveLength(1));

    await user.click(screen.getByTestId('new-conversation'));

    expect(backend.callsTo('new_chat')).toEqual([{ assistant: null, project: null }]);
    const input = await screen.findByTestId('rename-input');
    expect(input).toHaveFocus();
    const created = backend.rows().find((c) => c.id !== 'a')!;
    expect(rows()[0]).toHaveAttribute('data-id', created.id);
    expect(rows()[0]).toContainElement(input);
    expect(currentRoute()).toEqual({ name: 'conversation', id: created.id });
  });

  test('typing a title and pressing Enter renames the conversation', async () => {
    const backend = installFakeBackend();
    const user = userEvent.setup();
    render(App);

    await user.click(await screen.findByTestId('new-conversation'));
    await user.type(await screen.findByTestId('rename-input'), 'Trip to Chengdu{Enter}');

    const id = backend.rows()[0]!.id;
    expect(backend.callsTo('rename_conversation')).toEqual([{ id, title: 'Trip to Chengdu' }]);
    expect(screen.queryByTestId('rename-input')).not.toBeInTheDocument();
    expect(await screen.findByRole('link', { name: 'Trip to Chengdu' })).toHaveFocus();
  });

  test('a new chat on the built-in model says it answers on this computer, not “on On this computer”', async () => {
    const backend = installFakeBackend([], {
      providers: [providerView({ name: 'On this computer', preset: 'local', settings: { defaultModel: 'smollm2' } })],
    });
    const user = userEvent.setup();
    render(App);
    await waitFor(() => expect(backend.callsTo('list_conversations')).toHaveLength(1));
    await user.keyboard('{Control>}{Shift>}n{/Shift}{/Control}');
    const line = await screen.findByTestId('new-chat-model');
    expect(line).toHaveTextContent('Answers with smollm2 on this computer');
    expect(line.textContent).not.toContain('on On this computer');
  });

  test('Ctrl+Shift+N opens a new chat with its assistant picker focused, and the chat starts from the one picked', async () => {
    const backend = installFakeBackend([], {
      providers: [providerView({ name: 'Cloud', settings: { defaultModel: 'gpt-x' } })],
      assistants: [assistant({ id: 'a1', name: 'Translator', icon: '🌐', systemPrompt: 'Translate.' })],
    });
    const user = userEvent.setup();
    render(App);
    await waitFor(() => expect(backend.callsTo('list_conversations')).toHaveLength(1));

    await user.keyboard('{Control>}{Shift>}n{/Shift}{/Control}');

    const picker = await screen.findByTestId('new-chat-assistant');
    await waitFor(() => expect(picker).toHaveFocus());
    expect(screen.getByTestId('new-chat-model')).toHaveTextContent('Answers with gpt-x on Cloud');
    await user.selectOptions(picker, 'a1');
    await user.type(screen.getByTestId('composer'), 'Bonjour{Enter}');
    await waitFor(() => expect(backend.callsTo('new_chat')).toEqual([{ assistant: 'a1', project: null }]));
    expect(backend.rows()[0]!.systemPrompt).toBe('Translate.');
  });

  test('Ctrl+N starts a new chat', async () => {
    const backend = installFakeBackend();
    const user = userEvent.setup();
    render(App);
    await waitFor(() => expect(backend.callsTo('list_conversations')).toHaveLength(1));

    await user.keyboard('{Control>}n{/Control}');

    expect(await screen.findByTestId('rename-input')).toBeInTheDocument();
    expect(backend.callsTo('new_chat')).toHaveLength(1);
  });

  test('the rename button and a double-click open the rename input, and Escape or an empty title cancel', async () => {
    const backend = installFakeBackend([conversation({ id: 'a', title: 'Alpha' })]);
    const user = userEvent.setup();
    render(App);

    await user.click(await screen.findByTestId('rename-button'));
    const input = screen.getByTestId('rename-input');
    expect(input).toHaveValue('Alpha');
    await user.keyboard('{Escape}');
    expect(screen.queryByTestId('rename-input')).not.toBeInTheDocument();

    await user.dblClick(screen.getByRole('link', { name: 'Alpha' }));
    await user.clear(screen.getByTestId('rename-input'));
    await user.keyboard('{Enter}');

    expect(screen.queryByTestId('rename-input')).not.toBeInTheDocument();
    expect(backend.callsTo('rename_conversation')).toEqual([]);
    expect(screen.getByRole('link', { name: 'Alpha' })).toBeInTheDocument();
  });

  test('leaving the rename input commits the new title', async () => {
    const backend = installFakeBackend([conversation({ id: 'a', title: 'Alpha' })]);
    const user = userEvent.setup();
    render(App);

    await user.click(await screen.findByTestId('rename-button'));
    await user.clear(screen.getByTestId('rename-input'));
    await user.type(screen.getByTestId('rename-input'), 'Omega');
    await user.click(screen.getByTestId('composer'));

    expect(backend.callsTo('rename_conversation')).toEqual([{ id: 'a', title: 'Omega' }]);
    expect(await screen.findByRole('link', { name: 'Omega' })).toBeInTheDocument();
  });

  test('pin calls set_conversation_pinned with the toggled value and moves the row under Pinned', async () => {
    const backend = installFakeBackend([
      conversation({ id: 'a', title: 'Alpha', updatedAt: NOON - HOUR }),
      conversation({ id: 'b', title: 'Beta', updatedAt: NOON - 2 * HOUR }),
    ]);
    const user = userEvent.setup();
    render(App);
    await waitFor(() => expect(rows()).toHaveLength(2));

    await user.click(within(row('b')).getByTestId('pin-button'));

    expect(backend.callsTo('set_conversation_pinned')).toEqual([{ id: 'b', pinned: true }]);
    await waitFor(() => expect(rows().map((r) => r.dataset.id)).toEqual(['b', 'a']));
    expect(within(row('b')).getByTestId('pin-button')).toHaveAttribute('aria-pressed', 'true');
    expect(groupLabels()).toEqual(['Pinned', 'Today']);

    await user.click(within(row('b')).getByTestId('pin-button'));

    expect(backend.callsTo('set_conversation_pinned')[1]).toEqual({ id: 'b', pinned: false });
    await waitFor(() =>
      expect(within(row('b')).getByTestId('pin-button')).toHaveAttribute('aria-pressed', 'false'),
    );
  });

  test('delete removes the row at once, leaves a selected conversation, and deletes when the undo toast is dismissed', async () => {
    const backend = installFakeBackend([
      conversation({ id: 'a', title: 'Alpha', updatedAt: NOON - HOUR }),
      conversation({ id: 'b', title: 'Beta', updatedAt: NOON - 2 * HOUR }),
    ]);
    const user = userEvent.setup();
    render(App);
    await user.click(await screen.findByRole('link', { name: 'Alpha' }));
    expect(currentRoute()).toEqual({ name: 'conversation', id: 'a' });

    await user.click(within(row('a')).getByTestId('delete-button'));

    await waitFor(() => expect(rows().map((r) => r.dataset.id)).toEqual(['b']));
    expect(currentRoute()).toEqual({ name: 'chat' });
    expect(backend.callsTo('delete_conversation')).toEqual([]);
    await user.click(screen.getByRole('button', { name: 'Delete now' }));
    expect(backend.callsTo('delete_conversation')).toEqual([{ id: 'a' }]);
  });

  test('row actions have accessible names and are reachable with the keyboard', async () => {
    installFakeBackend([conversation({ id: 'a', title: 'Alpha' })]);
    const user = userEvent.setup();
    render(App);
    await screen.findByRole('link', { name: 'Alpha' });

    screen.getByTestId('new-conversation').focus();
    await user.tab();
    expect(screen.getByRole('searchbox', { name: 'Search messages' })).toHaveFocus();
    await user.tab();
    expect(screen.getByRole('button', { name: 'New project' })).toHaveFocus();
    await user.tab();
    expect(screen.getByRole('link', { name: 'Alpha' })).toHaveFocus();
    await user.tab();
    expect(screen.getByRole('button', { name: 'Pin “Alpha”' })).toHaveFocus();
    await user.tab();
    expect(screen.getByRole('button', { name: 'Rename “Alpha”' })).toHaveFocus();
    await user.keyboard('{Enter}');
    expect(screen.getByTestId('rename-input')).toHaveFocus();
    await user.keyboard('{Escape}');
    expect(screen.getByRole('link', { name: 'Alpha' })).toHaveFocus();
    await user.keyboard('{F2}');
    expect(screen.getByTestId('rename-input')).toHaveFocus();
  });
});

describe('the error banner', () => {
  test('a rejected command shows the translated kind and the message, and can be dismissed', async () => {
    const backend = installFakeBackend([conversation({ id: 'a', title: 'Alpha' })]);
    backend.fail('delete_conversation', { kind: 'database_locked', message: 'database is locked' });
    const user = userEvent.setup();
    render(App);

    await user.click(await screen.findByTestId('delete-button'));
    await user.click(screen.getByRole('button', { name: 'Delete now' }));

    const banner = await screen.findByTestId('error-banner');
    expect(banner).toHaveAttribute('role', 'alert');
    expect(banner).toHaveTextContent('The database is busy');
    expect(banner).toHaveTextContent('Database is locked');
    expect(rows()).toHaveLength(1);

    await user.click(within(banner).getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByTestId('error-banner')).not.toBeInTheDocument();
  });

  test('a failed first load and a non-object rejection show an internal error', async () => {
    const backend = installFakeBackend();
    backend.fail('list_conversations', 'IPC is not available');
    render(App);

    const banner = await screen.findByTestId('error-banner');
    expect(banner).toHaveTextContent('Something went wrong');
    expect(banner).toHaveTextContent('IPC is not available');
  });

  test('a refused rename puts the old title back and explains why', async () => {
    const backend = installFakeBackend([conversation({ id: 'a', title: 'Alpha' })]);
    backend.fail('rename_conversation', { kind: 'invalid_input', message: 'a title may have at most 300 characters' });
    const user = userEvent.setup();
    render(App);

    await user.click(await screen.findByTestId('rename-button'));
    await user.type(screen.getByTestId('rename-input'), ' and more{Enter}');

    // Said as the sentence it is, without the "Invalid input" jargon before it.
    const banner = await screen.findByTestId('error-banner');
    expect(banner).toHaveTextContent('A title may have at most 300 characters');
    expect(banner).not.toHaveTextContent('Invalid input');
    expect(await screen.findByRole('link', { name: 'Alpha' })).toBeInTheDocument();
  });
});
