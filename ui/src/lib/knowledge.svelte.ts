// Knowledge bases for the settings panel: the engine's commands (through `api`) and the
// `knowledge` events of indexing runs (progress, a finished or failed run, a base embedded
// again).
import { listen, type UnlistenFn } from '@tauri-apps/api/event';
import type { KnowledgeEvent } from '../bindings';

export {
  addKnowledgeSource,
  createKnowledgeBase,
  deleteKnowledgeBase,
  knowledgeFiles,
  listKnowledgeBases,
  reindexKnowledgeBase,
  removeKnowledgeSource,
  searchKnowledgeBase,
  setKnowledgeEmbedder,
} from '../api';

/** The event indexing runs send. */
export const KNOWLEDGE_EVENT = 'knowledge';

/** Calls `handle` with every knowledge event until the returned function is called. */
export function onKnowledgeEvent(handle: (event: KnowledgeEvent) => void): () => void {
  const stop: Promise<UnlistenFn> = listen<KnowledgeEvent>(KNOWLEDGE_EVENT, ({ payload }) => handle(payload));
  return () => void stop.then((unlisten) => unlisten()).catch(() => undefined);
}

