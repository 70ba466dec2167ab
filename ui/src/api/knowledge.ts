// Knowledge bases: list, create over folders, delete, add and remove a folder, choose the
// embedder, files with their errors, index again, and a search to try one (src-tauri/src/commands/knowledge.rs).
import type { EmbedderChoice, FilesPage, FilesQuery, IndexReport, KnowledgeBase, Passage } from '../bindings';
import * as commands from './commands';

export { listKnowledgeBases } from './commands';

export function createKnowledgeBase(name: string, sources: string[]): Promise<KnowledgeBase> {
  return commands.createKnowledgeBase({ name, sources });
}

export function deleteKnowledgeBase(name: string): Promise<void> {
  return commands.deleteKnowledgeBase({ name });
}

export function addKnowledgeSource(name: string, source: string): Promise<KnowledgeBase> {
  return commands.addKnowledgeSource({ name, source });
}

export function removeKnowledgeSource(name: string, source: string): Promise<KnowledgeBase> {
  return commands.removeKnowledgeSource({ name, source });
}

/** A page of base `name`'s files (see `FilesQuery`) and how many match. */
export function knowledgeFiles(name: string, query: FilesQuery): Promise<FilesPage> {
  return commands.knowledgeFiles({ name, query });
}

export function reindexKnowledgeBase(name: string): Promise<IndexReport> {
  return commands.reindexKnowledgeBase({ name });
}

export function searchKnowledgeBase(name: string, query: string, count = 5): Promise<Passage[]> {
  return commands.searchKnowledgeBase({ name, query, count });
}

export function setKnowledgeEmbedder(name: string, choice: EmbedderChoice): Promise<KnowledgeBase> {
  return commands.setKnowledgeEmbedder({ name, choice });
}
