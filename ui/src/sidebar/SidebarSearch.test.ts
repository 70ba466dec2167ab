import { render, screen, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, test } from 'vitest';
import type { SearchHit } from '../bindings';
import { setLang } from '../i18n/index.svelte';
import { currentRoute } from '../lib/router.svelte';
import { conversation, installFakeBackend } from '../test/fakeBackend';
import { resetAppState } from '../test/reset';
import Sidebar from './Sidebar.svelte';

beforeEach(() => resetAppState());

const HITS: SearchHit[] = [
  {
    conversationId: 'c-weather',
    conversationTitle: 'Weather in Paris',
    messageId: 'm1',
    role: 'assistant',
    createdAt: 1,
    snippet: [
      { text: 'It will ', hit: false },
      { text: 'rain', hit: true },
      { text: ' <img src=x onerror=alert(1)> tomorrow', hit: false },
    ],
  },
  {
    conversationId: 'c-other',
    conversationTitle: '',
    messageId: 'm2',
    role: 'user',
    createdAt: 2,
    snippet: [{ text: '<b>rain</b>', hit: true }],
  },
];

function setup(hits: SearchHit[] = HITS) {
  const backend = installFakeBackend([conversation({ id: 'c-weather', title: 'Weather in Paris' })], {
    extra: (cmd, args) => (cmd === 'search_messages' ? { items: String(args.query).trim() ? hits : [], nextCursor: null } : undefined),
  });
  render(Sidebar);
  return { backend, user: userEvent.setup() };
}

describe('sidebar search', () => {
  test('searches once typing pauses, and marks the matching runs as text', async () => {
    const { backend, user } = setup();
    await user.type(screen.getByRole('searchbox', { name: 'Search messages' }), 'rain');

    const hits = await screen.findAllByTestId('search-hit');
    expect(backend.callsTo('search_messages')).toEqual([{ query: 'rain', page: { limit: 30 } }]);
    expect(hits).toHaveLength(2);
    expect(hits[0]).toHaveTextContent('Weather in Paris');
    const snippet = within(hits[0]!).getByTestId('search-snippet');
    expect([...snippet.querySelectorAll('mark')].map((m) => m.textContent)).toEqual(['rain']);
    expect(snippet).toHaveTextContent('It will rain <img src=x onerror=alert(1)> tomorrow');
    expect(snippet.querySelector('img')).toBeNull();
    expect(hits[1]).toHaveTextContent('Untitled');
    expect(hits[1]!.querySelector('b')).toBeNull();
    expect(screen.queryByRole('navigation', { name: 'Conversations' })).toBeNull();
  });

  test('clicking a hit opens its conversation', async () => {
    const { user } = setup();
    await user.type(screen.getByRole('searchbox'), 'rain');
    await user.click((await screen.findAllByTestId('search-hit'))[0]!);
    expect(currentRoute()).toEqual({ name: 'conversation', id: 'c-weather' });
  });

  test('Ctrl+K and Cmd+K focus the search box; Escape clears it and the list returns', async () => {
    const { user } = setup();
    const box = screen.getByRole('searchbox');
    await user.keyboard('{Control>}k{/Control}');
    expect(box).toHaveFocus();
    box.blur();
    await user.keyboard('{Meta>}k{/Meta}');
    expect(box).toHaveFocus();

    await user.type(box, 'rain');
    await screen.findAllByTestId('search-hit');
    await user.keyboard('{Escape}');
    expect(box).toHaveValue('');
    expect(screen.queryByTestId('search-hit')).toBeNull();
    expect(screen.getByRole('navigation', { name: 'Conversations' })).toBeVisible();
  });

  test('ArrowDown moves from the box into the results and between them', async () => {
    const { user } = setup();
    await user.type(screen.getByRole('searchbox'), 'rain');
    const hits = await screen.findAllByTestId('search-hit');
    await user.keyboard('{ArrowDown}');
    expect(hits[0]).toHaveFocus();
    await user.keyboard('{ArrowDown}');
    expect(hits[1]).toHaveFocus();
    await user.keyboard('{ArrowUp}{ArrowUp}');
    expect(screen.getByRole('searchbox')).toHaveFocus();
  });

  test('says when nothing matches, in Simplified Chinese too', async () => {
    setLang('zh-CN');
    const { user } = setup([]);
    await user.type(screen.getByRole('searchbox', { name: '搜索消息' }), 'zzz');
    expect(await screen.findByText('没有匹配的消息。')).toBeInTheDocument();
  });

  test('a failed search says why', async () => {
    const { backend, user } = setup();
    backend.fail('search_messages', { kind: 'invalid_input', message: 'the query has no searchable words' });
    await user.type(screen.getByRole('searchbox'), '"');
    expect(await screen.findByRole('alert')).toHaveTextContent('the query has no searchable words');
  });
});
