// The chat: send, regenerate, edit and resend (each streams the turn's events in batches), stop,
// approvals, the shown branch, branches, a conversation's settings, search
// (src-tauri/src/commands/chat.rs).
import { Channel } from '@tauri-apps/api/core';
import type {
  ApprovalAnswer,
  Attachment,
  ChatEvent,
  ContentPart,
  Conversation,
  ConversationPatch,
  Message,
  Page,
  PageRequest,
  SearchHit,
} from '../bindings';
import * as commands from './commands';

export { toolCosts } from './commands';

/** Sends a user message (with MCP resources and files attached); the turn's events arrive on
 * `onEvents` in batches. `files` are the parts `attachFile`/`attachBytes` made. */
export function sendMessage(
  conversationId: string,
  text: string,
  onEvents: (batch: ChatEvent[]) => void,
  attachments: Attachment[] = [],
  files: ContentPart[] = [],
): Promise<void> {
  const onEvent = new Channel<ChatEvent[]>(onEvents);
  return commands.sendMessage({
    conversationId,
    text,
    ...(attachments.length ? { attachments } : {}),
    ...(files.length ? { files } : {}),
    onEvent,
  });
}

/** Answers the last user message again (a new branch). */
export function regenerate(conversationId: string, onEvents: (batch: ChatEvent[]) => void): Promise<void> {
  return commands.regenerate({ conversationId, onEvent: new Channel<ChatEvent[]>(onEvents) });
}

/** Sends a new version of a user message (a new branch). */
export function editAndResend(messageId: string, text: string, onEvents: (batch: ChatEvent[]) => void): Promise<void> {
  return commands.editAndResend({ messageId, text, onEvent: new Channel<ChatEvent[]>(onEvents) });
}

export function stopGeneration(conversationId: string): Promise<boolean> {
  return commands.stopGeneration({ conversationId });
}

/** Cancels, on its server, the task tool call `callId` runs as. */
export function cancelTask(callId: string): Promise<void> {
  return commands.cancelTask({ callId });
}

export function answerApproval(approvalId: string, answer: ApprovalAnswer): Promise<boolean> {
  return commands.answerApproval({ approvalId, answer });
}

/** The shown branch of a conversation, oldest first: all of it, or with `page.limit` its last
 * messages (with `page.before`, a message id, the ones just before that message). */
export function conversationMessages(conversationId: string, page: { before?: string; limit?: number } = {}): Promise<Message[]> {
  return commands.conversationMessages({ conversationId, ...page });
}

export function messageSiblings(messageId: string): Promise<string[]> {
  return commands.messageSiblings({ messageId });
}

export function switchBranch(messageId: string): Promise<Conversation> {
  return commands.switchBranch({ messageId });
}

export function updateConversation(id: string, patch: ConversationPatch): Promise<Conversation> {
  return commands.updateConversation({ id, patch });
}

export function searchMessages(query: string, page: PageRequest): Promise<Page<SearchHit>> {
  return commands.searchMessages({ query, page });
}
