import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import type { ToolCost } from '../../bindings';
import { setLang } from '../../i18n/index.svelte';
import { assistant } from '../../test/fakeAssistants';
import { installFakeBackend } from '../../test/fakeBackend';
import { providerView } from '../../test/fakeProviders';
import { resetAppState } from '../../test/reset';
import AssistantsSettings from './AssistantsSettings.svelte';

beforeEach(() => resetAppState());
afterEach(() => vi.restoreAllMocks());

const COSTS: ToolCost[] = [
  {
    server: 'fs',
    ready: true,
    tools: 2,
    tokens: 300,
    each: [
      { name: 'read_file', description: '', tokens: 120, readOnly: true },
      { name: 'write_file', description: '', tokens: 180, readOnly: false },
    ],
  },
];

function setup(rows = [assistant({ id: 'a1', name: 'Coder', icon: '🧑‍💻', model: 'qwen3' })]) {
  const cloud = providerView({ name: 'Cloud' });
  const backend = installFakeBackend([], {
    providers: [cloud],
    assistants: rows,
    extra: (cmd) => (cmd === 'tool_costs' ? COSTS : undefined),
  });
  render(AssistantsSettings);
  return { backend, cloud };
}

test('a new assistant is made in the editor with its prompt, model settings and tools', async () => {
  const { backend, cloud } = setup([]);
  const user = userEvent.setup();
  expect(await screen.findByTestId('assistants-empty')).toBeInTheDocument();
  await user.click(screen.getByTestId('assistant-new'));
  const editor = screen.getByTestId('assistant-editor');
  await user.clear(within(editor).getByTestId('assistant-icon'));
  await user.type(within(editor).getByTestId('assistant-icon'), '🏴‍☠️');
  await user.type(within(editor).getByTestId('assistant-name'), 'Pirate');
  await user.selectOptions(within(editor).getByTestId('assistant-provider'), cloud.provider.id);
  await user.type(within(editor).getByTestId('assistant-model'), 'gpt-x');
  await user.type(within(editor).getByTestId('system-prompt'), 'Answer like a pirate.');
  await user.type(within(editor).getByTestId('setting-temperature'), '0.9');
  await user.tab();
  await user.click(await within(editor).findByTestId('tools-expand'));
  await user.click(within(editor).getAllByTestId('tool-toggle')[1]!);
  await user.click(within(editor).getByTestId('assistant-save'));

  await waitFor(() =>
    expect(backend.callsTo('create_assistant')).toEqual([
      {
        draft: {
          name: 'Pirate',
          icon: '🏴‍☠️',
          systemPrompt: 'Answer like a pirate.',
          providerId: cloud.provider.id,
          model: 'gpt-x',
          settings: { temperature: 0.9, disabledTools: { fs: ['write_file'] } },
        },
      },
    ]),
  );
  expect(await screen.findByText('Pirate')).toBeInTheDocument();
  expect(screen.queryByTestId('assistant-editor')).not.toBeInTheDocument();
});

test('an assistant is edited, duplicated, made the default and deleted', async () => {
  const { backend } = setup();
  const user = userEvent.setup();
  const row = () => screen.getAllByTestId('assistant-row')[0]!;
  await waitFor(() => expect(screen.getAllByTestId('assistant-row')).toHaveLength(1));

  await user.click(within(row()).getByTestId('assistant-edit'));
  const name = screen.getByTestId('assistant-name');
  expect(name).toHaveValue('Coder');
  expect(screen.getByTestId('assistant-model')).toHaveValue('qwen3');
  await user.type(name, ' Pro');
  await user.click(screen.getByTestId('assistant-save'));
  await waitFor(() => expect(backend.callsTo('update_assistant')[0]).toMatchObject({ id: 'a1', draft: { name: 'Coder Pro', model: 'qwen3' } }));

  await user.click(within(await screen.findByText('Coder Pro').then((n) => n.closest('li')!)).getByTestId('assistant-duplicate'));
  await waitFor(() => expect(screen.getAllByTestId('assistant-row')).toHaveLength(2));
  expect(screen.getByText('Coder Pro (copy)')).toBeInTheDocument();

  await user.click(within(row()).getByTestId('assistant-default'));
  expect(backend.callsTo('set_default_assistant')).toEqual([{ id: 'a1' }]);

  vi.spyOn(window, 'confirm').mockReturnValue(true);
  await user.click(within(row()).getByTestId('assistant-delete'));
  await waitFor(() => expect(screen.getAllByTestId('assistant-row')).toHaveLength(1));
  expect(backend.assistants.defaultId).toBeNull();
});

test('a starter is added in the language of the app, in Chinese too', async () => {
  setLang('zh-CN');
  const { backend } = setup([]);
  const user = userEvent.setup();
  expect(await screen.findByRole('heading', { name: '助手' })).toBeInTheDocument();
  const starter = await screen.findByTestId('starter-row');
  expect(starter).toHaveTextContent('翻译');
  await user.click(within(starter).getByTestId('starter-add'));
  expect(backend.callsTo('add_starter_assistant')).toEqual([{ key: 'translator', lang: 'zh-CN' }]);
  expect(await screen.findByTestId('assistant-row')).toHaveTextContent('翻译');
  await user.click(screen.getByTestId('assistant-edit'));
  expect(screen.getByTestId('system-prompt')).toHaveValue('你是翻译。');
  expect(screen.getByLabelText('名称')).toHaveValue('翻译');
});
