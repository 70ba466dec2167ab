import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, expect, test, vi } from 'vitest';
import type { ChatSettings } from '../bindings';
import { setLang } from '../i18n/index.svelte';
import { resetAppState } from '../test/reset';
import ChatSettingsForm from './ChatSettingsForm.svelte';

beforeEach(() => resetAppState());

function setup(settings: ChatSettings = {}, systemPrompt = '') {
  const onchange = vi.fn();
  render(ChatSettingsForm, { settings, systemPrompt, onchange });
  return onchange;
}

test('each number field sets its setting and an emptied field goes back to the default', async () => {
  const onchange = setup({ temperature: 0.7, maxSteps: 5 });
  const user = userEvent.setup();
  const temperature = screen.getByTestId('setting-temperature');
  expect(temperature).toHaveValue(0.7);
  await user.clear(temperature);
  await user.type(temperature, '1.2');
  await user.tab();
  expect(onchange).toHaveBeenLastCalledWith({ temperature: 1.2, maxSteps: 5 }, '');
  await user.clear(screen.getByTestId('setting-maxSteps'));
  await user.tab();
  expect(onchange).toHaveBeenLastCalledWith({ temperature: 0.7 }, '');
  await user.type(screen.getByTestId('setting-maxOutputTokens'), '1024');
  await user.tab();
  expect(onchange).toHaveBeenLastCalledWith({ temperature: 0.7, maxSteps: 5, maxOutputTokens: 1024 }, '');
});

test('a value out of range is not saved', async () => {
  const onchange = setup();
  const user = userEvent.setup();
  await user.type(screen.getByTestId('setting-topP'), '3');
  await user.tab();
  expect(onchange).not.toHaveBeenCalled();
});

test('the system prompt, the tool mode and thinking with its effort and budget are handed over', async () => {
  const onchange = setup({}, 'Be brief.');
  const user = userEvent.setup();
  const prompt = screen.getByTestId('system-prompt');
  expect(prompt).toHaveValue('Be brief.');
  await user.clear(prompt);
  await user.type(prompt, 'Be kind.');
  await user.tab();
  expect(onchange).toHaveBeenLastCalledWith({}, 'Be kind.');
  await user.selectOptions(screen.getByTestId('setting-toolMode'), 'prompt');
  expect(onchange).toHaveBeenLastCalledWith({ toolMode: 'prompt' }, 'Be brief.');
  expect(screen.queryByTestId('setting-effort')).not.toBeInTheDocument();
  await user.selectOptions(screen.getByTestId('setting-thinking'), 'off');
  expect(onchange).toHaveBeenLastCalledWith({ thinking: { enabled: false } }, 'Be brief.');
});

test('with thinking on, the effort and the budget can be set', async () => {
  const onchange = setup({ thinking: { enabled: true } });
  const user = userEvent.setup();
  await user.selectOptions(screen.getByTestId('setting-effort'), 'high');
  expect(onchange).toHaveBeenLastCalledWith({ thinking: { enabled: true, effort: 'high' } }, '');
  await user.type(screen.getByTestId('setting-budget'), '4096');
  await user.tab();
  expect(onchange).toHaveBeenLastCalledWith({ thinking: { enabled: true, budgetTokens: 4096 } }, '');
});

test('the form speaks Chinese', () => {
  setLang('zh-CN');
  setup({ thinking: { enabled: true } });
  expect(screen.getByLabelText('系统提示词')).toBeInTheDocument();
  expect(screen.getByLabelText('温度')).toBeInTheDocument();
  expect(screen.getByLabelText('思考强度')).toBeInTheDocument();
  expect(screen.getByTestId('setting-thinking')).toHaveDisplayValue('开启');
});
