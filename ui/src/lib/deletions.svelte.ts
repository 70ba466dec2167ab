// Deleting a conversation with undo. The row disappears at once and a toast offers Undo for
// UNDO_MS; the conversation is deleted in the database only when the toast expires or is
// dismissed. Until then nothing is lost: if the app quits during the toast, the conversation
// is simply still there on the next start.
import * as api from '../api';
import type { Conversation } from '../bindings';
import { conversations } from './conversations.svelte';
import { reportError } from './errors.svelte';

/** How long the Undo toast stays. */
export const UNDO_MS = 8000;

export type PendingDeletion = { id: string; title: string };

type Entry = { row: Conversation | undefined; timer: ReturnType<typeof setTimeout> };

class Deletions {
  /** The deletions that can still be undone, oldest first (one toast each). */
  pending = $state<PendingDeletion[]>([]);
  private entries = new Map<string, Entry>();

  /** Hides conversation `id` and deletes it for good in UNDO_MS unless undone. */
  start(id: string): void {
    if (this.entries.has(id)) return;
    const row = conversations.hide(id);
    const timer = setTimeout(() => void this.commit(id), UNDO_MS);
    this.entries.set(id, { row, timer });
    this.pending = [...this.pending, { id, title: row?.title ?? '' }];
  }

  /** Puts the conversation back; it was never deleted. */
  undo(id: string): void {
    const entry = this.take(id);
    if (entry) conversations.unhide(id, entry.row);
  }

  /** Undoes the newest pending deletion (Ctrl/Cmd+Z); false when there is none. */
  undoLast(): boolean {
    const last = this.pending[this.pending.length - 1];
    if (!last) return false;
    this.undo(last.id);
    return true;
  }

  /** Deletes now (the toast expired or was dismissed); a failure lists the row again. */
  async commit(id: string): Promise<void> {
    const entry = this.take(id);
    if (!entry) return;
    try {
      await api.deleteConversation(id);
      conversations.unhide(id);
    } catch (error) {
      conversations.unhide(id, entry.row);
      reportError(error);
    }
  }

  /** Forgets every pending deletion without deleting anything (tests). */
  reset(): void {
    for (const entry of this.entries.values()) clearTimeout(entry.timer);
    this.entries.clear();
    this.pending = [];
  }

  private take(id: string): Entry | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    clearTimeout(entry.timer);
    this.entries.delete(id);
    this.pending = this.pending.filter((p) => p.id !== id);
    return entry;
  }
}

export const deletions = new Deletions();
