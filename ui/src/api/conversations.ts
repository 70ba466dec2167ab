// Conversations: list, create, rename, pin, delete (src-tauri/src/commands/conversations.rs).
import type { Conversation, NewConversation, Page, PageRequest } from '../bindings';
import * as commands from './commands';

export function listConversations(page: PageRequest): Promise<Page<Conversation>> {
  return commands.listConversations({ page });
}

export function createConversation(input: NewConversation = {}): Promise<Conversation> {
  return commands.createConversation({ input });
}

export function renameConversation(id: string, title: string): Promise<Conversation> {
  return commands.renameConversation({ id, title });
}

export function setConversationPinned(id: string, pinned: boolean): Promise<Conversation> {
  return commands.setConversationPinned({ id, pinned });
}

export function deleteConversation(id: string): Promise<void> {
  return commands.deleteConversation({ id });
}
