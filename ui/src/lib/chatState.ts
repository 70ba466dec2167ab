// The live state of a conversation's shown branch while a turn streams: stored messages plus
// the events of the running turn applied on top. Pure functions, so every event kind is
// tested without a backend; `chat.svelte.ts` keeps one of these in a rune.
import type {
  ApprovalAnswer,
  CallView,
  ChatEvent,
  ContentPart,
  IpcError,
  JsonValue,
  Message,
  TaskStatus,
  TurnEnd,
} from '../bindings';

/** A call the server runs as a task: its id, status and the server's status message. */
export type TaskView = { taskId: string; status: TaskStatus; message: string | null };

/** Where one tool call is in its life. */
export type CallStatus =
  | { kind: 'proposed' }
  | { kind: 'waiting'; approvalId: string }
  | { kind: 'running'; progress?: number; total?: number | null; message?: string | null; task?: TaskView }
  | { kind: 'done'; content: unknown; isError: boolean; task?: TaskView };

export type ChatState = {
  messages: Message[];
  calls: Record<string, CallStatus>;
  running: boolean;
  error: IpcError | null;
  lastEnd: TurnEnd | null;
};

export function emptyState(): ChatState {
  return { messages: [], calls: {}, running: false, error: null, lastEnd: null };
}

/** The calls' statuses as stored messages describe them (results from tool messages). */
export function callsFromMessages(messages: Message[]): Record<string, CallStatus> {
  const calls: Record<string, CallStatus> = {};
  for (const m of messages) {
    for (const p of m.content) {
      if (p.type === 'tool_call') calls[p.id] = { kind: 'proposed' };
      if (p.type === 'tool_result') calls[p.callId] = { kind: 'done', content: p.content, isError: p.isError };
    }
  }
  return calls;
}

/** A state showing `messages` as stored. */
export function fromMessages(messages: Message[]): ChatState {
  return { ...emptyState(), messages, calls: callsFromMessages(messages) };
}

function draft(id: string, model: string, conversationId: string): Message {
  const now = Date.now();
  return {
    id,
    conversationId,
    parentId: null,
    role: 'assistant',
    content: [],
    status: 'streaming',
    model,
    usage: null,
    error: null,
    createdAt: now,
    updatedAt: now,
  };
}

/** Adds reasoning to the message's (first) reasoning part, text to its last text part. */
function appendText(m: Message, type: 'text' | 'reasoning', text: string): Message {
  const content = [...m.content];
  const at = type === 'reasoning' ? content.findIndex((p) => p.type === 'reasoning') : content.length - 1;
  const part = content[at];
  if (part && part.type === type) {
    content[at] = { ...part, text: part.text + text };
  } else if (type === 'reasoning') {
    content.unshift({ type, text });
  } else {
    content.push({ type, text });
  }
  return { ...m, content };
}

function updateMessage(s: ChatState, id: string, f: (m: Message) => Message): ChatState {
  return { ...s, messages: s.messages.map((m) => (m.id === id ? f(m) : m)) };
}

function callPart(call: CallView): ContentPart {
  return { type: 'tool_call', id: call.id, server: call.server, tool: call.tool, arguments: call.arguments as JsonValue };
}

/** Applies one event of the running turn. */
export function applyEvent(s: ChatState, e: ChatEvent, conversationId: string): ChatState {
  switch (e.type) {
    case 'started':
      return { ...s, running: true, error: null, lastEnd: null };
    case 'message_started':
      return { ...s, messages: [...s.messages, draft(e.message_id, e.model, conversationId)] };
    case 'text_delta':
      return updateMessage(s, e.message_id, (m) => appendText(m, 'text', e.text));
    case 'reasoning_delta':
      return updateMessage(s, e.message_id, (m) => appendText(m, 'reasoning', e.text));
    case 'tool_call_proposed': {
      const next = updateMessage(s, e.message_id, (m) => ({ ...m, content: [...m.content, callPart(e.call)] }));
      return { ...next, calls: { ...next.calls, [e.call.id]: { kind: 'proposed' } } };
    }
    case 'approval_needed':
      return { ...s, calls: { ...s.calls, [e.call.id]: { kind: 'waiting', approvalId: e.approval_id } } };
    case 'tool_started':
      return { ...s, calls: { ...s.calls, [e.call_id]: { kind: 'running' } } };
    case 'tool_progress':
      return {
        ...s,
        calls: {
          ...s.calls,
          [e.call_id]: { kind: 'running', progress: e.progress, total: e.total, message: e.message, task: taskOf(s, e.call_id) },
        },
      };
    case 'tool_task': {
      const task: TaskView = { taskId: e.task_id, status: e.status, message: e.message };
      const before = s.calls[e.call_id];
      const next: CallStatus = before?.kind === 'done' ? { ...before, task } : { ...runningOf(before), task };
      return { ...s, calls: { ...s.calls, [e.call_id]: next } };
    }
    case 'tool_result': {
      const done: CallStatus = { kind: 'done', content: e.content, isError: e.is_error, task: taskOf(s, e.call_id) };
      return { ...s, calls: { ...s.calls, [e.call_id]: done } };
    }
    case 'usage':
      return updateMessage(s, e.message_id, (m) => ({
        ...m,
        usage: { inputTokens: e.usage.inputTokens, outputTokens: e.usage.outputTokens },
      }));
    case 'step_finished':
      return s;
    case 'error':
      return { ...s, error: { kind: e.kind, message: e.message } };
    case 'titled':
      // The title belongs to the conversation list (chat.svelte.ts hands it over), not the pane.
      return s;
    case 'finished':
      return { ...s, running: false, lastEnd: e.reason };
  }
}

/** The task a call runs as, if it became one. */
function taskOf(s: ChatState, callId: string): TaskView | undefined {
  const c = s.calls[callId];
  return c?.kind === 'running' || c?.kind === 'done' ? c.task : undefined;
}

/** A call's running status (its progress kept), whatever it was. */
function runningOf(c: CallStatus | undefined): Extract<CallStatus, { kind: 'running' }> {
  return c?.kind === 'running' ? c : { kind: 'running' };
}

/** The approval a call waits for, if any. */
export function waitingApproval(s: ChatState, callId: string): string | null {
  const c = s.calls[callId];
  return c?.kind === 'waiting' ? c.approvalId : null;
}

export type { ApprovalAnswer };
