import { expect, test } from 'vitest';
import type { ChatEvent, Message } from '../bindings';
import { applyEvent, emptyState, fromMessages, waitingApproval } from './chatState';

const conv = 'c1';

function run(events: ChatEvent[]) {
  return events.reduce((s, e) => applyEvent(s, e, conv), emptyState());
}

test('a streamed answer with reasoning, a tool call, its approval and result builds the live view', () => {
  const call = { id: 'call_1', server: 'weather', tool: 'get_weather', arguments: { location: 'California' } };
  const s = run([
    { type: 'started', conversation_id: conv, user_message_id: 'u1' },
    { type: 'message_started', message_id: 'a1', model: 'qwen3', step: 1 },
    { type: 'reasoning_delta', message_id: 'a1', text: 'Need ' },
    { type: 'text_delta', message_id: 'a1', text: 'Let me ' },
    { type: 'reasoning_delta', message_id: 'a1', text: 'weather.' },
    { type: 'text_delta', message_id: 'a1', text: 'check.' },
    { type: 'tool_call_proposed', message_id: 'a1', call },
    { type: 'approval_needed', approval_id: 'ap1', call },
  ]);
  expect(s.running).toBe(true);
  expect(s.messages[0].content).toEqual([
    { type: 'reasoning', text: 'Need weather.' },
    { type: 'text', text: 'Let me check.' },
    { type: 'tool_call', id: 'call_1', server: 'weather', tool: 'get_weather', arguments: { location: 'California' } },
  ]);
  expect(waitingApproval(s, 'call_1')).toBe('ap1');

  const done = [
    { type: 'tool_started', call_id: 'call_1' },
    { type: 'tool_progress', call_id: 'call_1', progress: 1, total: 2, message: 'half' },
  ].reduce((st, e) => applyEvent(st, e as ChatEvent, conv), s);
  expect(done.calls['call_1']).toEqual({ kind: 'running', progress: 1, total: 2, message: 'half' });
  const result = applyEvent(
    done,
    { type: 'tool_result', message_id: 't1', call_id: 'call_1', content: { content: [] }, is_error: false },
    conv,
  );
  expect(result.calls['call_1']).toEqual({ kind: 'done', content: { content: [] }, isError: false });
  expect(waitingApproval(result, 'call_1')).toBeNull();
});

test('an error and the end of the turn are kept for the pane to show', () => {
  const s = run([
    { type: 'started', conversation_id: conv, user_message_id: 'u1' },
    { type: 'error', kind: 'provider_unavailable', message: 'connection refused' },
    { type: 'titled', title: 'Weather' },
    { type: 'finished', reason: 'error', head_id: 'u1' },
  ]);
  expect(s.running).toBe(false);
  expect(s.error).toEqual({ kind: 'provider_unavailable', message: 'connection refused' });
  expect(s.lastEnd).toBe('error');
});

test('stored messages give each call the result found in the tool message', () => {
  const base = { conversationId: conv, parentId: null, status: 'complete', model: null, usage: null, error: null, createdAt: 0, updatedAt: 0 } as const;
  const messages: Message[] = [
    { ...base, id: 'a', role: 'assistant', content: [{ type: 'tool_call', id: 'k', server: 's', tool: 't', arguments: {} }] },
    { ...base, id: 't', role: 'tool', content: [{ type: 'tool_result', callId: 'k', content: { x: 1 }, isError: true }] },
  ];
  expect(fromMessages(messages).calls).toEqual({ k: { kind: 'done', content: { x: 1 }, isError: true } });
});

test('a call that becomes a task shows each task status, keeps it through progress, and ends with its result', () => {
  const call = { id: 'call_t', server: 'everything', tool: 'simulate-research-query', arguments: { topic: 'tides' } };
  const s = run([
    { type: 'started', conversation_id: conv, user_message_id: 'u1' },
    { type: 'message_started', message_id: 'a1', model: 'm', step: 1 },
    { type: 'tool_call_proposed', message_id: 'a1', call },
    { type: 'tool_started', call_id: 'call_t' },
    { type: 'tool_task', call_id: 'call_t', task_id: 't1', status: 'working', message: 'Gathering sources...' },
  ]);
  const working = { taskId: 't1', status: 'working', message: 'Gathering sources...' };
  expect(s.calls.call_t).toEqual({ kind: 'running', task: working });
  const asking = applyEvent(
    s,
    { type: 'tool_task', call_id: 'call_t', task_id: 't1', status: 'input_required', message: 'Which tides?' },
    conv,
  );
  expect(asking.calls.call_t).toEqual({
    kind: 'running',
    task: { taskId: 't1', status: 'input_required', message: 'Which tides?' },
  });
  const progressed = applyEvent(
    s,
    { type: 'tool_progress', call_id: 'call_t', progress: 2, total: 4, message: null },
    conv,
  );
  expect(progressed.calls.call_t).toEqual({ kind: 'running', progress: 2, total: 4, message: null, task: working });
  const ended = [
    { type: 'tool_task', call_id: 'call_t', task_id: 't1', status: 'completed', message: null },
    { type: 'tool_result', message_id: 'm2', call_id: 'call_t', content: { content: [] }, is_error: false },
  ] satisfies ChatEvent[];
  const done = ended.reduce((st, e) => applyEvent(st, e, conv), progressed);
  expect(done.calls.call_t).toEqual({
    kind: 'done',
    content: { content: [] },
    isError: false,
    task: { taskId: 't1', status: 'completed', message: null },
  });
});
