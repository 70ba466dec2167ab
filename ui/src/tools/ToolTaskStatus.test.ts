import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, test } from 'vitest';
import type { TaskStatus } from '../bindings';
import { setLang } from '../i18n/index.svelte';
import type { CallStatus } from '../lib/chatState';
import { installFakeBackend } from '../test/fakeBackend';
import { resetAppState } from '../test/reset';
import ChatToolCall from './ChatToolCall.svelte';

beforeEach(() => resetAppState());

function card(status: CallStatus) {
  return render(ChatToolCall, {
    callId: 'call_t',
    server: 'everything',
    tool: 'simulate-research-query',
    args: { topic: 'tides' },
    status,
    onanswer: async () => true,
  });
}

const task = (status: TaskStatus, message: string | null = null) => ({ taskId: 't1', status, message });

describe('a tool call running as a task', () => {
  test.each([
    ['working', 'Working', true],
    ['input_required', 'Waiting for your input', true],
  ] as const)('%s: shows the status, the server message and a cancel button', (status, text, cancellable) => {
    card({ kind: 'running', task: task(status, 'Gathering sources...') });
    expect(screen.getByTestId('tool-task')).toHaveAttribute('data-task-status', status);
    expect(screen.getByTestId('tool-task-status')).toHaveTextContent(text);
    expect(screen.getByTestId('tool-task-message')).toHaveTextContent('Gathering sources...');
    expect(screen.queryByRole('button', { name: 'Cancel task' }) !== null).toBe(cancellable);
  });

  test.each([
    ['completed', 'Completed', false],
    ['failed', 'Failed', true],
    ['cancelled', 'Cancelled', true],
  ] as const)('%s: shows the final status with the result and no cancel button', (status, text, isError) => {
    const content = { content: [{ type: 'text', text: isError ? 'the disk is full' : 'report' }] };
    card({ kind: 'done', content, isError, task: task(status) });
    expect(screen.getByTestId('tool-task-status')).toHaveTextContent(text);
    expect(screen.queryByTestId('tool-task-message')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Cancel task' })).toBeNull();
    expect(screen.getByTestId('tool-call-result')).toHaveTextContent(isError ? 'the disk is full' : 'report');
  });

  test('the cancel button cancels the task on the server once', async () => {
    const backend = installFakeBackend([], {
      extra: (cmd) => (cmd === 'cancel_task' ? null : undefined),
    });
    const user = userEvent.setup();
    card({ kind: 'running', task: task('working') });
    const button = screen.getByRole('button', { name: 'Cancel task' });
    await user.click(button);
    expect(backend.callsTo('cancel_task')).toEqual([{ callId: 'call_t' }]);
    expect(button).toBeDisabled();
    expect(button).toHaveTextContent('Cancelling…');
  });

  test('a plain call shows no task', () => {
    card({ kind: 'running' });
    expect(screen.queryByTestId('tool-task')).toBeNull();
  });

  test('speaks Chinese', () => {
    setLang('zh-CN');
    card({ kind: 'running', task: task('working') });
    expect(screen.getByTestId('tool-task-status')).toHaveTextContent('进行中');
    expect(screen.getByRole('button', { name: '取消任务' })).toBeInTheDocument();
  });
});
