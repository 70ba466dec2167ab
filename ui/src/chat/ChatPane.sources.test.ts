import { render, screen, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, expect, test } from 'vitest';
import type { JsonValue, Message } from '../bindings';
import App from '../App.svelte';
import { citedNumbers, resultsOf, sourcesByMessage } from '../lib/sources';
import { conversationHref, navigate } from '../lib/router.svelte';
import { conversation, installFakeBackend } from '../test/fakeBackend';
import { resetAppState } from '../test/reset';

beforeEach(() => resetAppState());

const base = { parentId: null, model: null, usage: null, error: null, createdAt: 1, updatedAt: 1, status: 'complete' } as const;

/** A `search` result as the built-in web server returns it. */
const searchResult = (results: JsonValue[]): { [key: string]: JsonValue } => ({
  content: [{ type: 'text', text: 'Results for "python" (Brave Search): …' }],
  structured: { query: 'python', provider: 'Brave Search', results },
  is_error: false,
});

function turn(conversationId: string, answer: string, results: JsonValue[]): Message[] {
  const call = { type: 'tool_call', id: 'c1', server: 'web', tool: 'search', arguments: { query: 'python' } } as const;
  return [
    { ...base, id: 'u1', conversationId, role: 'user', content: [{ type: 'text', text: 'What is Python?' }] },
    { ...base, id: 'a1', conversationId, role: 'assistant', content: [call] },
    { ...base, id: 't1', conversationId, role: 'tool', content: [{ type: 'tool_result', callId: 'c1', content: searchResult(results), isError: false }] },
    { ...base, id: 'a2', conversationId, role: 'assistant', content: [{ type: 'text', text: answer }] },
  ];
}

const RESULTS: JsonValue[] = [
  { n: 1, title: 'Welcome to Python.org', url: 'https://www.python.org/', snippet: 'The official home' },
  { n: 2, title: 'Evil', url: 'javascript:alert(1)', snippet: '' },
  { n: 3, title: '', url: 'https://en.wikipedia.org/wiki/Python_(programming_language)', snippet: '' },
];

test('an answer shows the search results it cites as chips that open in the browser', async () => {
  const conv = conversation({ title: 'Python' });
  const stored = turn(conv.id, 'Python is a language [1], named after Monty Python [3][2]. See also [9].', RESULTS);
  const backend = installFakeBackend([conv], {
    extra: (cmd, args) => {
      switch (cmd) {
        case 'list_providers':
          return [{ provider: { id: 'p', name: 'fake', settings: { toolModes: {}, strictTools: false } }, key: { source: null, masked: null } }];
        case 'conversation_messages':
          return stored;
        case 'message_siblings':
          return [args.messageId];
        case 'tool_costs':
          return [];
        case 'open_external':
          return null;
        default:
          return undefined;
      }
    },
  });
  navigate(conversationHref(conv.id));
  render(App);
  const row = await screen.findByTestId('message-sources');
  const chips = within(row).getAllByRole('button');
  expect(chips.map((c) => c.textContent?.replace(/\s+/g, ' ').trim())).toEqual([
    '1 www.python.org Welcome to Python.org',
    '3 en.wikipedia.org en.wikipedia.org',
  ]);
  await userEvent.setup().click(chips[0]!);
  expect(backend.callsTo('open_external')).toEqual([{ url: 'https://www.python.org/' }]);
});

test('sources come from the same turn only, the latest search numbering wins, and failed results are ignored', () => {
  const first = turn('c', 'See [1].', [{ n: 1, title: 'Old', url: 'https://old.example/' }]);
  const second = turn('c', 'Now [1] and [2].', [
    { n: 1, title: 'New', url: 'https://new.example/' },
    { n: 2, title: 'Two', url: 'https://two.example/' },
  ]).map((m) => ({ ...m, id: `${m.id}b` }));
  const uncited = turn('c', 'No citations here.', RESULTS).map((m) => ({ ...m, id: `${m.id}c` }));
  const found = sourcesByMessage([...first, ...second, ...uncited]);
  expect(found.get('a2')?.map((s) => s.title)).toEqual(['Old']);
  expect(found.get('a2b')?.map((s) => s.title)).toEqual(['New', 'Two']);
  expect(found.has('a2c')).toBe(false);
  expect(resultsOf({ ...searchResult(RESULTS), is_error: true })).toEqual([]);
  expect(resultsOf({ content: [], structured: { results: [{ n: 'x', url: 'https://a/' }, 'junk'] }, is_error: false })).toEqual([]);
  expect([...citedNumbers('[1] [12][1234] [a]')]).toEqual([1, 12]);
});

test('a knowledge base passage becomes a chip with its file name that opens the file by path', async () => {
  const conv = conversation({ title: 'Car' });
  const passages: JsonValue[] = [
    { n: 1, title: 'service.txt', url: 'file:///home/me/notes/car/service.txt', path: '/home/me/notes/car/service.txt', line: 1, snippet: 'Oil change at 45,000 km.' },
    { n: 2, title: 'no path', url: 'file:///etc/passwd', snippet: '' },
    { n: 3, title: 'relative', url: 'file:///x', path: 'x', snippet: '' },
  ];
  const stored = turn(conv.id, 'The oil change is due at 45,000 km [1][2][3].', passages);
  const backend = installFakeBackend([conv], {
    extra: (cmd, args) => {
      switch (cmd) {
        case 'list_providers':
          return [{ provider: { id: 'p', name: 'fake', settings: { toolModes: {}, strictTools: false } }, key: { source: null, masked: null } }];
        case 'conversation_messages':
          return stored;
        case 'message_siblings':
          return [args.messageId];
        case 'tool_costs':
          return [];
        case 'open_knowledge_file':
          return null;
        default:
          return undefined;
      }
    },
  });
  navigate(conversationHref(conv.id));
  render(App);
  const row = await screen.findByTestId('message-sources');
  const chips = within(row).getAllByRole('button');
  expect(chips.map((c) => c.textContent?.replace(/\s+/g, ' ').trim())).toEqual(['1 service.txt service.txt']);
  await userEvent.setup().click(chips[0]!);
  expect(backend.callsTo('open_knowledge_file')).toEqual([{ path: '/home/me/notes/car/service.txt' }]);
  expect(backend.callsTo('open_external')).toEqual([]);
});
