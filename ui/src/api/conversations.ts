// Conversations: list, create, rename, pin, delete (src-tauri/src/commands/conversations.rs).
import type { Conversation, ListScope, NewConversation, Page, PageRequest } from '../bindings';
import * as commands from './commands';

/** A page of the conversations of `scope` (those in no project unless given). */
export function listConversations(page: PageRequest, scope: ListScope = 'unfiled'): Promise<Page<Conversation>> {
  return commands.listConversations({ page, scope });
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
