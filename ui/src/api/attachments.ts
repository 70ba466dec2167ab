// Attached files and message actions: files made ready to send, stored images, whether a model
// sees images, deleting a message, and the prices token use is shown at
// (src-tauri/src/commands/attachments.rs).
import type { ModelPrice, PreparedFile } from '../bindings';
import * as commands from './commands';

export { modelPrices, ownModelPrices } from './commands';

/** Makes the file at `path` (from the file picker) ready to send. */
export function attachFile(path: string): Promise<PreparedFile> {
  return commands.attachFile({ path });
}

/** Makes pasted or dropped bytes named `name` ready to send (sent raw, not as JSON; the name in
 * the `x-file-name` header the command reads). */
export function attachBytes(name: string, bytes: Uint8Array): Promise<PreparedFile> {
  return commands.attachBytes(bytes, { 'x-file-name': encodeURIComponent(name) });
}

/** A stored image as a `data:` URL, whole or as its thumbnail. */
export function imageUrl(hash: string, thumbnail: boolean): Promise<string> {
  return commands.imageUrl({ hash, thumbnail });
}

/** Whether the conversation's model can see images (`null`: not known). */
export function imageSupport(conversationId: string): Promise<boolean | null> {
  return commands.imageSupport({ conversationId });
}

/** How many messages deleting `messageId` removes (itself and those under it). */
export function messageDeletionSize(messageId: string): Promise<number> {
  return commands.messageDeletionSize({ messageId });
}

/** Deletes a message and every message under it; resolves to how many were deleted. */
export function deleteMessage(messageId: string): Promise<number> {
  return commands.deleteMessage({ messageId });
}

/** Replaces the user's own prices per model. */
export function setModelPrices(prices: Record<string, ModelPrice>): Promise<void> {
  return commands.setModelPrices({ prices });
}
