// Assistants: list, create, edit, duplicate, delete, the default one, the starters, a new chat
// from one, export and import; and the settings the chat's tool picker reaches
// (src-tauri/src/commands/assistants.rs).
import type { Assistant, AssistantDraft, AssistantImport, Conversation } from '../bindings';
import * as commands from './commands';

export { assistantStarters, autoAllowReadOnly, defaultAssistant, listAssistants } from './commands';

export function createAssistant(draft: AssistantDraft): Promise<Assistant> {
  return commands.createAssistant({ draft });
}

export function updateAssistant(id: string, draft: AssistantDraft): Promise<Assistant> {
  return commands.updateAssistant({ id, draft });
}

export function duplicateAssistant(id: string): Promise<Assistant> {
  return commands.duplicateAssistant({ id });
}

export function deleteAssistant(id: string): Promise<void> {
  return commands.deleteAssistant({ id });
}

export function setDefaultAssistant(id: string | null): Promise<void> {
  return commands.setDefaultAssistant({ id });
}

export function addStarterAssistant(key: string, lang: string): Promise<Assistant> {
  return commands.addStarterAssistant({ key, lang });
}

/** A new conversation from an assistant, or from the default one when `assistant` is null. */
/** A new conversation from `assistant` (null: the project's or the default one), in `project`
 * when given. */
export function newChat(assistant: string | null, project: string | null = null): Promise<Conversation> {
  return commands.newChat({ assistant, project });
}

export function exportAssistants(ids: string[], path: string): Promise<number> {
  return commands.exportAssistants({ ids, path });
}

export function importAssistants(path: string): Promise<AssistantImport> {
  return commands.importAssistants({ path });
}

export function setAutoAllowReadOnly(on: boolean): Promise<void> {
  return commands.setAutoAllowReadOnly({ on });
}

/** The model a provider answers with when a chat names none (chosen and kept when unset). */
export function providerDefaultModel(id: string): Promise<string | null> {
  return commands.providerDefaultModel({ id });
}
