import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, expect, test } from 'vitest';
import type { ExportProgress, ExportSummary } from '../bindings';
import App from '../App.svelte';
import { setLang } from '../i18n/index.svelte';
import { conversation, installFakeBackend } from '../test/fakeBackend';
import { resetAppState } from '../test/reset';

beforeEach(() => resetAppState());

type Channel = { id: number };

/** Delivers messages on a channel the way Tauri does (indexed, to its callback). */
function deliver(channel: Channel, messages: ExportProgress[], from = 0) {
  const internals = (window as unknown as { __TAURI_INTERNALS__: { runCallback: (id: number, data: unknown) => void } })
    .__TAURI_INTERNALS__;
  messages.forEach((message, i) => internals.runCallback(channel.id, { index: from + i, message }));
}

/** A fake backend whose export waits until the test finishes it (or fails it). */
function setup() {
  const weather = conversation({ title: 'Weather' });
  const other = conversation({ title: 'Groceries' });
  let channel: Channel | null = null;
  let finish: ((summary: ExportSummary) => void) | null = null;
  let reject: ((error: unknown) => void) | null = null;
  const backend = installFakeBackend([weather, other], {
    extra: (cmd, args) => {
      if (cmd === 'search_messages') return { items: [], nextCursor: null };
      if (cmd !== 'export_conversations') return undefined;
      channel = args.onProgress as Channel;
      return new Promise<ExportSummary>((resolve, fail) => {
        finish = resolve;
        reject = fail;
      });
    },
  });
  return {
    weather,
    backend,
    channel: () => channel!,
    finish: (summary: ExportSummary) => finish!(summary),
    fail: (error: unknown) => reject!(error),
  };
}

function rowOf(id: string): HTMLElement {
  const row = screen.getAllByTestId('conversation-row').find((r) => r.dataset.id === id);
  if (!row) throw new Error(`no row ${id}`);
  return row;
}

test('exporting one conversation from its row sends its id, the format, the options and the typed path', async () => {
  const { weather, backend, finish } = setup();
  const user = userEvent.setup();
  render(App);
  await waitFor(() => expect(screen.getAllByTestId('conversation-row')).toHaveLength(2));
  await user.click(within(rowOf(weather.id)).getByRole('button', { name: 'Export “Weather”' }));

  const dialog = await screen.findByRole('dialog', { name: 'Export conversations' });
  expect(within(dialog).getByLabelText(/This conversation/)).toBeChecked();
  await user.click(within(dialog).getByLabelText('HTML'));
  await user.click(within(dialog).getByLabelText('Tool results'));
  await user.type(within(dialog).getByLabelText(/Save to file/), '/tmp/weather.html');
  await user.click(within(dialog).getByRole('button', { name: 'Export' }));

  await waitFor(() => expect(backend.callsTo('export_conversations')).toHaveLength(1));
  expect(backend.callsTo('export_conversations')[0]!.request).toEqual({
    format: 'html',
    scope: { kind: 'ids', ids: [weather.id] },
    out: '/tmp/weather.html',
    noToolResults: true,
    noReasoning: false,
  });
  finish({ conversations: 1, messages: 4, files: 1, path: '/tmp/weather.html' });
  expect(await within(dialog).findByTestId('export-summary')).toHaveTextContent(
    'Exported 1 conversation(s) and 4 message(s) in 1 file(s) to /tmp/weather.html.',
  );
});

test('JSON is lossless: the leave-out options are disabled and never sent, whatever was ticked', async () => {
  const { backend, finish } = setup();
  const user = userEvent.setup();
  render(App);
  await user.click(await screen.findByTestId('open-export'));
  const dialog = await screen.findByRole('dialog', { name: 'Export conversations' });
  expect(within(dialog).queryByLabelText(/This conversation/)).not.toBeInTheDocument();
  expect(within(dialog).getByLabelText('All conversations')).toBeChecked();
  await user.click(within(dialog).getByLabelText('Reasoning'));
  await user.click(within(dialog).getByLabelText(/JSON/));
  expect(within(dialog).getByLabelText('Reasoning')).toBeDisabled();
  expect(within(dialog).getByLabelText('Tool results')).toBeDisabled();
  await user.type(within(dialog).getByLabelText(/Save to file/), '/tmp/all.json');
  await user.click(within(dialog).getByRole('button', { name: 'Export' }));

  await waitFor(() => expect(backend.callsTo('export_conversations')).toHaveLength(1));
  expect(backend.callsTo('export_conversations')[0]!.request).toEqual({
    format: 'json',
    scope: { kind: 'all' },
    out: '/tmp/all.json',
    noToolResults: false,
    noReasoning: false,
  });
  finish({ conversations: 2, messages: 9, files: 1, path: '/tmp/all.json' });
  await within(dialog).findByTestId('export-summary');
});

test('bulk Markdown goes to a folder, and the sidebar search is offered as a scope', async () => {
  const { backend, finish } = setup();
  const user = userEvent.setup();
  render(App);
  await user.type(await screen.findByRole('searchbox', { name: 'Search messages' }), 'rain');
  await user.click(screen.getByTestId('open-export'));
  const dialog = await screen.findByRole('dialog', { name: 'Export conversations' });
  expect(within(dialog).getByLabelText(/Save to folder/)).toBeInTheDocument();
  await user.click(within(dialog).getByLabelText('Those matching the search “rain”'));
  await user.type(within(dialog).getByLabelText(/Save to folder/), '/tmp/rain');
  await user.click(within(dialog).getByRole('button', { name: 'Export' }));

  await waitFor(() => expect(backend.callsTo('export_conversations')).toHaveLength(1));
  expect(backend.callsTo('export_conversations')[0]!.request).toMatchObject({
    format: 'md',
    scope: { kind: 'search', query: 'rain' },
    out: '/tmp/rain',
  });
  finish({ conversations: 0, messages: 0, files: 1, path: '/tmp/rain' });
  await within(dialog).findByTestId('export-summary');
});

test('the progress bar follows the progress channel until the summary replaces it', async () => {
  const { channel, finish } = setup();
  const user = userEvent.setup();
  render(App);
  await user.click(await screen.findByTestId('open-export'));
  const dialog = await screen.findByRole('dialog', { name: 'Export conversations' });
  await user.type(within(dialog).getByLabelText(/Save to folder/), '/tmp/out');
  await user.click(within(dialog).getByRole('button', { name: 'Export' }));

  const bar = await within(dialog).findByRole('progressbar', { name: 'Export progress' });
  expect(bar).not.toHaveAttribute('aria-valuenow');
  await waitFor(() => expect(channel()).not.toBeNull());
  deliver(channel(), [{ done: 1, total: 4 }]);
  await waitFor(() => expect(bar).toHaveAttribute('aria-valuenow', '1'));
  expect(bar).toHaveAttribute('aria-valuemax', '4');
  expect(within(dialog).getByText('1 of 4 conversations')).toBeInTheDocument();
  deliver(channel(), [{ done: 3, total: 4 }], 1);
  await waitFor(() => expect(bar).toHaveAttribute('aria-valuenow', '3'));
  expect(within(dialog).getByRole('button', { name: 'Exporting…' })).toBeDisabled();

  finish({ conversations: 4, messages: 20, files: 5, path: '/tmp/out' });
  await within(dialog).findByTestId('export-summary');
  expect(within(dialog).queryByRole('progressbar')).not.toBeInTheDocument();
});

test('a failed export shows the error translated by its kind, in Chinese too', async () => {
  const { fail } = setup();
  setLang('zh-CN');
  const user = userEvent.setup();
  render(App);
  await user.click(await screen.findByTestId('open-export'));
  const dialog = await screen.findByRole('dialog', { name: '导出对话' });
  await user.type(within(dialog).getByLabelText(/保存到文件夹/), '/nope/out');
  await user.click(within(dialog).getByRole('button', { name: '导出' }));
  await waitFor(() => expect(within(dialog).getByRole('progressbar')).toBeInTheDocument());
  fail({ kind: 'io', message: '/nope/out: permission denied' });

  const alert = await within(dialog).findByRole('alert');
  expect(alert).toHaveAttribute('data-kind', 'io');
  expect(alert).toHaveTextContent('无法读取或写入文件');
  expect(alert).toHaveTextContent('/nope/out: permission denied');
  expect(within(dialog).queryByTestId('export-summary')).not.toBeInTheDocument();
});

test('the dialog keeps focus inside, and Escape closes it and returns focus to the opener', async () => {
  setup();
  const user = userEvent.setup();
  render(App);
  const opener = await screen.findByTestId('open-export');
  await user.click(opener);
  const dialog = await screen.findByRole('dialog', { name: 'Export conversations' });
  expect(dialog).toContainElement(document.activeElement as HTMLElement);
  for (let i = 0; i < 12; i++) {
    await user.tab();
    expect(dialog).toContainElement(document.activeElement as HTMLElement);
  }
  await user.keyboard('{Escape}');
  expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  expect(opener).toHaveFocus();
});

test('Browse asks the native picker for a file for one conversation and for a folder for several', async () => {
  const weather = conversation({ title: 'Weather: today/tomorrow' });
  const backend = installFakeBackend([weather], {
    extra: (cmd) => {
      if (cmd === 'plugin:dialog|save') return '/home/me/weather.md';
      if (cmd === 'plugin:dialog|open') return '/home/me/exports';
      return undefined;
    },
  });
  const user = userEvent.setup();
  render(App);
  await waitFor(() => expect(screen.getAllByTestId('conversation-row')).toHaveLength(1));
  await user.click(within(rowOf(weather.id)).getByTestId('export-button'));
  const dialog = await screen.findByRole('dialog', { name: 'Export conversations' });
  await user.click(within(dialog).getByRole('button', { name: 'Browse…' }));
  await waitFor(() => expect(within(dialog).getByLabelText(/Save to file/)).toHaveValue('/home/me/weather.md'));
  expect(backend.callsTo('plugin:dialog|save')[0]).toMatchObject({
    options: { defaultPath: 'Weather today tomorrow.md', filters: [{ extensions: ['md'] }] },
  });

  await user.click(within(dialog).getByLabelText('All conversations'));
  await user.click(within(dialog).getByRole('button', { name: 'Browse…' }));
  await waitFor(() => expect(within(dialog).getByLabelText(/Save to folder/)).toHaveValue('/home/me/exports'));
  expect(backend.callsTo('plugin:dialog|open')[0]).toMatchObject({ options: { directory: true } });
});

test('closing the picker without a choice keeps the typed path', async () => {
  installFakeBackend([], { extra: (cmd) => (cmd === 'plugin:dialog|open' ? null : undefined) });
  const user = userEvent.setup();
  render(App);
  await user.click(await screen.findByTestId('open-export'));
  const dialog = await screen.findByRole('dialog', { name: 'Export conversations' });
  await user.type(within(dialog).getByLabelText(/Save to folder/), '/tmp/typed');
  await user.click(within(dialog).getByRole('button', { name: 'Browse…' }));
  expect(within(dialog).getByLabelText(/Save to folder/)).toHaveValue('/tmp/typed');
  expect(within(dialog).queryByRole('alert')).not.toBeInTheDocument();
});
