// Side by side: one message answered by two to four models at once
// (src-tauri/src/commands/compare.rs).
import { Channel } from '@tauri-apps/api/core';
import type { CompareBatch, CompareModel } from '../bindings';
import * as commands from './commands';

/** Sends `text` and has every model of `models` answer it; each model's event batches arrive
 * on `onBatch` tagged with its place in `models`. */
export function compareMessage(
  conversationId: string,
  text: string,
  models: CompareModel[],
  onBatch: (batch: CompareBatch) => void,
): Promise<void> {
  const onEvent = new Channel<CompareBatch>(onBatch);
  return commands.compareMessage({ conversationId, text, models, onEvent });
}
