import { render, screen, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, expect, test, vi } from 'vitest';
import type { ChatSettings, ToolCost } from '../bindings';
import { setLang } from '../i18n/index.svelte';
import { resetAppState } from '../test/reset';
import ToolPicker from './ToolPicker.svelte';

beforeEach(() => resetAppState());

const COSTS: ToolCost[] = [
  {
    server: 'fs',
    ready: true,
    tools: 2,
    tokens: 300,
    each: [
      { name: 'read_file', description: 'Reads a file', tokens: 120, readOnly: true },
      { name: 'write_file', description: 'Writes a file', tokens: 180, readOnly: false },
    ],
  },
  { server: 'time', ready: false, tools: 0, tokens: 0, each: [] },
];

function setup(settings: ChatSettings = {}) {
  const onchange = vi.fn();
  render(ToolPicker, { settings, costs: COSTS, onchange });
  return onchange;
}

test('each tool shows its tokens and read-only mark, and switching one off saves it and lowers the sum', async () => {
  const onchange = setup({ disabledTools: { fs: ['write_file'] } });
  const user = userEvent.setup();
  expect(screen.getByText(/fs/).closest('label')).toHaveTextContent('1 tools, ~120 tokens');
  await user.click(screen.getAllByTestId('tools-expand')[0]!);
  const list = screen.getByRole('list', { name: 'Tools of fs' });
  expect(within(list).getAllByRole('listitem').map((li) => li.textContent?.replace(/\s+/g, ' ').trim())).toEqual([
    'read_file read-only ~120 tokens',
    'write_file ~180 tokens',
  ]);
  const [read, write] = within(list).getAllByTestId('tool-toggle') as HTMLInputElement[];
  expect([read!.checked, write!.checked]).toEqual([true, false]);
  await user.click(read!);
  expect(onchange).toHaveBeenLastCalledWith({ disabledTools: { fs: ['read_file', 'write_file'] } });
  await user.click(write!);
  expect(onchange).toHaveBeenLastCalledWith({});
});

test('a server switched off lends no tool and its tools cannot be chosen', async () => {
  const onchange = setup({ servers: ['time'] });
  const user = userEvent.setup();
  await user.click(screen.getAllByTestId('tools-expand')[0]!);
  for (const box of screen.getAllByTestId('tool-toggle')) expect(box).toBeDisabled();
  await user.click(screen.getAllByTestId('server-toggle')[0]!);
  expect(onchange).toHaveBeenLastCalledWith({ servers: ['time', 'fs'] });
  expect(screen.getByText(/time/).closest('label')).toHaveTextContent('not running');
});

test('the picker speaks Chinese', async () => {
  setLang('zh-CN');
  setup();
  const user = userEvent.setup();
  await user.click(screen.getAllByTestId('tools-expand')[0]!);
  expect(screen.getByRole('list', { name: 'fs 的工具' })).toHaveTextContent('只读');
  expect(screen.getByRole('list', { name: 'fs 的工具' })).toHaveTextContent('约 120 token');
});
