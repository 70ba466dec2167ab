import { render, screen } from '@testing-library/svelte';
import { beforeEach, expect, test, vi } from 'vitest';
import type { Message } from '../../bindings';
import type { CallStatus } from '../../lib/chatState';
import { resetAppState } from '../../test/reset';
import MessageView from './MessageView.svelte';

beforeEach(() => resetAppState());

function message(status: Message['status']): Message {
  return {
    id: 'm2',
    conversationId: 'c1',
    parentId: 'm1',
    role: 'assistant',
    content: [{ type: 'tool_call', id: 'call1', server: 'time', tool: 'get_current_time', arguments: { timezone: 'Asia/Tokyo' } }],
    status,
    model: 'SmolLM2-135M-Instruct.Q4_1.gguf',
    usage: null,
    error: null,
    createdAt: 1,
    updatedAt: 1,
  };
}

function show(status: Message['status'], call: CallStatus | undefined) {
  const calls: Record<string, CallStatus> = call ? { call1: call } : {};
  return render(MessageView, {
    message: message(status),
    calls,
    siblings: ['m2'],
    busy: true,
    last: true,
    onanswer: vi.fn(),
    onedit: vi.fn(),
    onregenerate: vi.fn(),
    onswitch: vi.fn(),
  });
}

test('the writing cursor shows while the model writes, not while its call waits for approval or runs', async () => {
  const { rerender } = show('streaming', undefined);
  expect(screen.getByTestId('writing-cursor')).toBeInTheDocument();

  await rerender({ calls: { call1: { kind: 'waiting', approvalId: 'ap1' } } });
  expect(screen.queryByTestId('writing-cursor')).toBeNull();
  expect(screen.getByTestId('tool-call-state')).toHaveTextContent('Waiting for approval');

  await rerender({ calls: { call1: { kind: 'running' } } });
  expect(screen.queryByTestId('writing-cursor')).toBeNull();

  await rerender({ message: message('complete'), calls: { call1: { kind: 'done', content: 'ok', isError: false } } });
  expect(screen.queryByTestId('writing-cursor')).toBeNull();
});
