import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, expect, test } from 'vitest';
import type { ImportResult, MergeEntry } from '../bindings';
import App from '../App.svelte';
import { setLang } from '../i18n/index.svelte';
import { conversation, installFakeBackend } from '../test/fakeBackend';
import { resetAppState } from '../test/reset';

beforeEach(() => resetAppState());

function entry(fields: Partial<MergeEntry> & Pick<MergeEntry, 'id' | 'title' | 'action'>): MergeEntry {
  return { messagesAdded: 0, messagesSkipped: 0, messagesConflicted: 0, conflicts: [], ...fields };
}

function result(dryRun: boolean): ImportResult {
  return {
    source: 'switchboard',
    assistants: 0,
    projects: 0,
    report: {
      dryRun,
      added: 1,
      merged: 1,
      skipped: 1,
      conflicted: 1,
      messagesAdded: 7,
      entries: [
        entry({ id: 'n1', title: 'Brand new', action: 'add', messagesAdded: 5 }),
        entry({ id: 'm1', title: 'Grown since', action: 'merge', messagesAdded: 2, messagesSkipped: 3 }),
        entry({ id: 's1', title: 'Same as here', action: 'skip', messagesSkipped: 4 }),
        entry({
          id: 'k1',
          title: 'Edited both sides',
          action: 'conflict',
          messagesSkipped: 1,
          messagesConflicted: 1,
          conflicts: ['message u2: the text differs'],
        }),
      ],
    },
  };
}

function setup() {
  const backend = installFakeBackend([conversation({ title: 'Here already' })], {
    extra: (cmd) => {
      if (cmd === 'preview_import') return result(true);
      if (cmd === 'import_conversations') return result(false);
      return undefined;
    },
  });
  return { backend };
}

async function openImport() {
  const user = userEvent.setup();
  render(App);
  await user.click(await screen.findByTestId('open-import'));
  const dialog = await screen.findByRole('dialog', { name: /Import conversations|导入对话/ });
  return { user, dialog };
}

test('the preview lists each conversation with what would happen to it, conflicts spelled out, and imports nothing', async () => {
  const { backend } = setup();
  const { user, dialog } = await openImport();
  expect(within(dialog).queryByRole('button', { name: 'Import' })).not.toBeInTheDocument();
  await user.type(within(dialog).getByLabelText(/File to import/), '/tmp/export.json');
  await user.click(within(dialog).getByRole('button', { name: 'Preview' }));

  const preview = await within(dialog).findByTestId('import-preview');
  expect(backend.callsTo('preview_import')).toEqual([{ path: '/tmp/export.json' }]);
  expect(backend.callsTo('import_conversations')).toEqual([]);
  const rows = within(preview).getAllByTestId('import-entry');
  expect(rows.map((r) => [r.querySelector('th')?.textContent, r.dataset.action])).toEqual([
    ['Brand new', 'add'],
    ['Grown since', 'merge'],
    ['Same as here', 'skip'],
    ['Edited both sides', 'conflict'],
  ]);
  expect(rows[3]).toHaveTextContent('Conflict');
  expect(rows[3]).toHaveTextContent('0 new, 1 already here, 1 in conflict');
  expect(within(rows[3]!).getByTestId('import-conflicts')).toHaveTextContent('message u2: the text differs');
  expect(within(preview).getByTestId('import-totals')).toHaveTextContent('1 to add, 1 to merge, 1 to skip, 1 in conflict');
  expect(preview).toHaveTextContent('File type: Switchboard export');
});

test('import runs only after a preview of the same path, then shows the report and reloads the list', async () => {
  const { backend } = setup();
  const { user, dialog } = await openImport();
  const path = within(dialog).getByLabelText(/File to import/);
  await user.type(path, '/tmp/a.json');
  await user.click(within(dialog).getByRole('button', { name: 'Preview' }));
  await within(dialog).findByTestId('import-preview');

  // A different path hides the stale preview and its Import button.
  await user.type(path, 'x');
  expect(within(dialog).queryByRole('button', { name: 'Import' })).not.toBeInTheDocument();
  await user.keyboard('{Backspace}');
  const listed = backend.callsTo('list_conversations').length;
  await user.click(await within(dialog).findByRole('button', { name: 'Import' }));

  await waitFor(() => expect(backend.callsTo('import_conversations')).toEqual([{ path: '/tmp/a.json' }]));
  expect(await within(dialog).findByTestId('import-report')).toHaveTextContent(
    'Imported: 1 added, 1 merged, 1 skipped, 1 in conflict; 7 message(s) added.',
  );
  expect(within(dialog).queryByTestId('import-preview')).not.toBeInTheDocument();
  await waitFor(() => expect(backend.callsTo('list_conversations').length).toBeGreaterThan(listed));
});

test('a file that cannot be read shows the error translated by its kind and no preview', async () => {
  const { backend } = setup();
  backend.fail('preview_import', { kind: 'invalid_input', message: '/tmp/x.json: not a Switchboard, ChatGPT or Claude export' });
  setLang('zh-CN');
  const { user, dialog } = await openImport();
  await user.type(within(dialog).getByLabelText(/要导入的文件/), '/tmp/x.json');
  await user.click(within(dialog).getByRole('button', { name: '预览' }));

  const alert = await within(dialog).findByRole('alert');
  expect(alert).toHaveAttribute('data-kind', 'invalid_input');
  expect(alert).toHaveTextContent('输入无效');
  expect(alert).toHaveTextContent('not a Switchboard, ChatGPT or Claude export');
  expect(within(dialog).queryByTestId('import-preview')).not.toBeInTheDocument();
  expect(backend.callsTo('import_conversations')).toEqual([]);
});

test('a failed import keeps the preview and says why', async () => {
  const { backend } = setup();
  const { user, dialog } = await openImport();
  await user.type(within(dialog).getByLabelText(/File to import/), '/tmp/a.json');
  await user.click(within(dialog).getByRole('button', { name: 'Preview' }));
  await within(dialog).findByTestId('import-preview');
  backend.fail('import_conversations', { kind: 'database_locked', message: 'database is locked' });
  await user.click(within(dialog).getByRole('button', { name: 'Import' }));

  const alert = await within(dialog).findByRole('alert');
  expect(alert).toHaveTextContent('The database is busy');
  expect(within(dialog).getByTestId('import-preview')).toBeInTheDocument();
  expect(within(dialog).queryByTestId('import-report')).not.toBeInTheDocument();
});

test('Browse opens the native picker for one JSON file and puts the choice in the path field', async () => {
  const backend = installFakeBackend([], {
    extra: (cmd) => (cmd === 'plugin:dialog|open' ? '/home/me/conversations.json' : cmd === 'preview_import' ? result(true) : undefined),
  });
  const { user, dialog } = await openImport();
  await user.click(within(dialog).getByRole('button', { name: 'Browse…' }));
  await waitFor(() => expect(within(dialog).getByLabelText(/File to import/)).toHaveValue('/home/me/conversations.json'));
  expect(backend.callsTo('plugin:dialog|open')[0]).toMatchObject({ options: { multiple: false, directory: false } });
  await user.click(within(dialog).getByRole('button', { name: 'Preview' }));
  await within(dialog).findByTestId('import-preview');
  expect(backend.callsTo('preview_import')).toEqual([{ path: '/home/me/conversations.json' }]);
});
