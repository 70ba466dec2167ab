import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { emit } from '@tauri-apps/api/event';
import { beforeEach, expect, test } from 'vitest';
import type { FilesQuery, KnowledgeBase, KnowledgeFile } from '../../bindings';
import { setLang } from '../../i18n/index.svelte';
import { installFakeBackend } from '../../test/fakeBackend';
import { providerView } from '../../test/fakeProviders';
import { resetAppState } from '../../test/reset';
import KnowledgeSettings from './KnowledgeSettings.svelte';

beforeEach(() => resetAppState());

function base(name: string, more: Partial<KnowledgeBase> = {}): KnowledgeBase {
  return { id: 1, name, embedder: 'builtin:multilingual-e5-small-q4_0.gguf', choice: { kind: 'builtin' }, dimensions: 384, sources: [], files: 0, failed: 0, chunks: 0, createdAt: 0, ...more };
}

/** A backend that keeps the bases it is told about. */
function knowledgeBackend(start: KnowledgeBase[], files: KnowledgeFile[] = [], providers = [providerView({ name: 'Home Ollama' }), providerView({ name: 'Claude', preset: 'local' })]) {
  const bases = [...start];
  return installFakeBackend([], {
    providers,
    extra: (cmd, args) => {
      const a = args as Record<string, unknown>;
      switch (cmd) {
        case 'list_knowledge_bases':
          return structuredClone(bases);
        case 'create_knowledge_base': {
          const made = base(String(a.name), { id: bases.length + 1, sources: a.sources as string[] });
          bases.push(made);
          return made;
        }
        case 'knowledge_files': {
          const q = a.query as FilesQuery;
          const matching = files.filter((f) => f.path.toLowerCase().includes(q.contains.toLowerCase()) && (!q.failedOnly || f.error));
          return { total: matching.length, files: matching.slice(q.offset, q.offset + q.limit) };
        }
        case 'set_knowledge_embedder': {
          const found = bases.find((b) => b.name === a.name)!;
          found.choice = a.choice as KnowledgeBase['choice'];
          return structuredClone(found);
        }
        case 'search_knowledge_base':
          return [{ base: a.name, path: '/home/me/notes/car.md', title: 'car.md', text: 'Oil change at 45,000 km.', line: 3, page: null, heading: null, score: 0.03 }];
        default:
          return undefined;
      }
    },
  });
}

test('a base is created from a name and a folder, and listed with its counts', async () => {
  const backend = knowledgeBackend([]);
  const user = userEvent.setup();
  render(KnowledgeSettings);
  await screen.findByTestId('knowledge-empty');
  await user.type(screen.getByTestId('knowledge-name'), 'Notes');
  await user.type(screen.getByTestId('knowledge-folder'), '/home/me/notes');
  await user.click(screen.getByTestId('knowledge-create'));
  expect(backend.callsTo('create_knowledge_base')).toEqual([{ name: 'Notes', sources: ['/home/me/notes'] }]);
  const card = await screen.findByTestId('knowledge-base');
  expect(within(card).getByText('/home/me/notes')).toBeInTheDocument();
  expect(within(card).getByTestId('knowledge-counts')).toHaveTextContent('0 files, 0 passages');
});

test('indexing shows its progress, and the finished run reloads the counts', async () => {
  knowledgeBackend([base('Notes', { sources: ['/home/me/notes'] })]);
  render(KnowledgeSettings);
  const card = await screen.findByTestId('knowledge-base');
  await emit('knowledge', { type: 'progress', base: 'Notes', done: 3, total: 12, current: '/home/me/notes/a.md' });
  expect(await within(card).findByTestId('knowledge-progress')).toHaveTextContent('3 of 12 files');
  expect(within(card).getByRole('progressbar')).toHaveAttribute('value', '25');
  await emit('knowledge', { type: 'indexed', base: 'Notes', indexed: 12, unchanged: 0, removed: 0, failed: 0, chunks: 40 });
  await waitFor(() => expect(within(card).queryByTestId('knowledge-progress')).toBeNull());
});

test('each file shows its error, and a search shows where its passages come from', async () => {
  const files: KnowledgeFile[] = [
    { path: '/home/me/notes/car.md', size: 10, modifiedNs: 0, sha256: 'x', title: null, chunks: 2, error: null, indexedAt: 0 },
    { path: '/home/me/notes/fake.txt', size: 8, modifiedNs: 0, sha256: null, title: null, chunks: 0, error: 'not a text file (binary content)', indexedAt: 0 },
  ];
  knowledgeBackend([base('Notes', { sources: ['/home/me/notes'], files: 2, failed: 1, chunks: 2 })], files);
  const user = userEvent.setup();
  render(KnowledgeSettings);
  const card = await screen.findByTestId('knowledge-base');
  expect(within(card).getByTestId('knowledge-counts')).toHaveTextContent('2 files, 2 passages · 1 not indexed');
  await user.click(within(card).getByTestId('knowledge-files-toggle'));
  const list = await within(card).findByTestId('knowledge-files');
  expect(list).toHaveTextContent('not a text file (binary content)');
  expect(list).toHaveTextContent('2 passages');
  await user.type(within(card).getByTestId('knowledge-query'), 'oil change{Enter}');
  const found = await within(card).findByTestId('knowledge-found');
  expect(found).toHaveTextContent('/home/me/notes/car.md:3');
  expect(found).toHaveTextContent('Oil change at 45,000 km.');
});

test('a base of many files lists them a page at a time, filtered by path and to the failed ones', async () => {
  const files: KnowledgeFile[] = Array.from({ length: 250 }, (_, i) => ({
    path: `/home/me/notes/n${String(i).padStart(3, '0')}.md`,
    size: 10,
    modifiedNs: 0,
    sha256: i % 50 === 7 ? null : 'x',
    title: null,
    chunks: 1,
    error: i % 50 === 7 ? 'permission denied' : null,
    indexedAt: 0,
  }));
  knowledgeBackend([base('Notes', { sources: ['/home/me/notes'], files: 250, failed: 5, chunks: 245 })], files);
  const user = userEvent.setup();
  render(KnowledgeSettings);
  const card = await screen.findByTestId('knowledge-base');
  await user.click(within(card).getByTestId('knowledge-files-toggle'));
  const list = await within(card).findByTestId('knowledge-files');
  await waitFor(() => expect(list.querySelectorAll('li')).toHaveLength(100));
  expect(within(card).getByTestId('knowledge-files-shown')).toHaveTextContent('Showing 100 of 250');
  await user.click(within(card).getByTestId('knowledge-files-more'));
  await waitFor(() => expect(list.querySelectorAll('li')).toHaveLength(200));
  expect(list).toHaveTextContent('n199.md');

  await user.click(within(card).getByTestId('knowledge-files-failed'));
  await waitFor(() => expect(list.querySelectorAll('li')).toHaveLength(5));
  expect(within(card).queryByTestId('knowledge-files-more')).toBeNull();
  await user.type(within(card).getByTestId('knowledge-files-filter'), 'N10');
  await waitFor(() => expect(list.querySelectorAll('li')).toHaveLength(1));
  expect(list).toHaveTextContent('/home/me/notes/n107.md');
  await user.click(within(card).getByTestId('knowledge-files-failed'));
  await waitFor(() => expect(list.querySelectorAll('li')).toHaveLength(10));
  expect(list.querySelector('li')).toHaveTextContent(/1 passage$/);
  expect(list).toHaveTextContent('permission denied');
});

test('the panel speaks Chinese', async () => {
  setLang('zh-CN');
  knowledgeBackend([base('笔记', { files: 3, chunks: 9 })]);
  render(KnowledgeSettings);
  const card = await screen.findByTestId('knowledge-base');
  expect(within(card).getByTestId('knowledge-counts')).toHaveTextContent('3 个文件，9 个段落');
  expect(screen.getByRole('button', { name: '创建' })).toBeInTheDocument();
});

test('a provider’s embedding model is chosen for a base, and the re-embedding is shown until it ends', async () => {
  const backend = knowledgeBackend([base('Notes', { sources: ['/home/me/notes'], files: 2, chunks: 4 })]);
  const user = userEvent.setup();
  render(KnowledgeSettings);
  const card = await screen.findByTestId('knowledge-base');
  expect(within(card).getByTestId('knowledge-embedder')).toHaveTextContent('Built-in (offline)');
  await user.click(within(card).getByTestId('knowledge-embedder-change'));
  const from = within(card).getByTestId('knowledge-embedder-provider');
  // Only providers with an embedding endpoint are offered.
  expect(within(from).queryByText('Claude')).toBeNull();
  await user.selectOptions(from, 'Home Ollama');
  expect(within(card).getByTestId('knowledge-embedder-use')).toBeDisabled();
  await user.type(within(card).getByTestId('knowledge-embedder-model'), 'nomic-embed-text');
  await user.click(within(card).getByTestId('knowledge-embedder-use'));
  const [call] = backend.callsTo('set_knowledge_embedder') as { name: string; choice: { kind: string; provider: string; model: string } }[];
  expect(call.name).toBe('Notes');
  expect(call.choice).toMatchObject({ kind: 'provider', model: 'nomic-embed-text' });
  await waitFor(() => expect(within(card).getByTestId('knowledge-embedder')).toHaveTextContent('Home Ollama · nomic-embed-text'));
  await emit('knowledge', { type: 'embeddingAgain', base: 'Notes', embedder: 'provider:p1/nomic-embed-text' });
  expect(await within(card).findByTestId('knowledge-embedding-again')).toHaveTextContent('search uses keywords until it finishes');
  await emit('knowledge', { type: 'indexed', base: 'Notes', indexed: 2, unchanged: 0, removed: 0, failed: 0, chunks: 4 });
  await waitFor(() => expect(within(card).queryByTestId('knowledge-embedding-again')).toBeNull());
});

test('an embedding model the provider does not have is refused with its reason, and nothing changes', async () => {
  const backend = knowledgeBackend([base('Notes')]);
  backend.fail('set_knowledge_embedder', { kind: 'provider', message: 'the model nomic-embed is not available on this provider: model "nomic-embed" not found, try pulling it first' });
  const user = userEvent.setup();
  render(KnowledgeSettings);
  const card = await screen.findByTestId('knowledge-base');
  await user.click(within(card).getByTestId('knowledge-embedder-change'));
  await user.selectOptions(within(card).getByTestId('knowledge-embedder-provider'), 'Home Ollama');
  await user.type(within(card).getByTestId('knowledge-embedder-model'), 'nomic-embed');
  await user.click(within(card).getByTestId('knowledge-embedder-use'));
  expect(await within(card).findByRole('alert')).toHaveTextContent('try pulling it first');
  expect(within(card).getByTestId('knowledge-embedder')).toHaveTextContent('Built-in (offline)');
});

test('a base embedded by a provider shows the provider by its name from the start', async () => {
  const ollama = providerView({ name: 'Home Ollama' });
  knowledgeBackend([base('Notes', { choice: { kind: 'provider', provider: ollama.provider.id, model: 'bge-m3' } })], [], [ollama]);
  render(KnowledgeSettings);
  const card = await screen.findByTestId('knowledge-base');
  await waitFor(() => expect(within(card).getByTestId('knowledge-embedder')).toHaveTextContent('Home Ollama · bge-m3'));
});

test('a base of one file and one passage says so in the singular', async () => {
  knowledgeBackend([base('Tiny', { files: 1, chunks: 1 })]);
  render(KnowledgeSettings);
  const card = await screen.findByTestId('knowledge-base');
  expect(within(card).getByTestId('knowledge-counts')).toHaveTextContent(/^1 file, 1 passage$/);
});
