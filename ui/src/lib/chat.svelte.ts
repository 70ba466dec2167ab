// The chat of the conversation on screen: its shown branch, the running turn's live state,
// and the actions (send, stop, regenerate, edit, approve). Events from the engine arrive in
// batches over a Tauri channel and are applied by `chatState`.
import * as api from '../api';
import type { ApprovalAnswer, Attachment, ChatEvent, ContentPart, Message, PreparedFile } from '../bindings';
import { applyEvent, callsFromMessages, emptyState, fromMessages, type ChatState } from './chatState';
import { conversations } from './conversations.svelte';
import { teardownApps } from './mcpApp';
import { reportError } from './errors.svelte';
import { deleteMessage } from './uploads.svelte';

/** How many messages a conversation opens with, and how many more each scroll to the top reads. */
export const PAGE_SIZE = 100;

class ChatSession {
  conversationId = $state<string | null>(null);
  state = $state<ChatState>(emptyState());
  /** Conversations whose turn is under way (started here, its `finished` not come yet), shown
   * or not: one opened again mid-turn shows the turn as running, with Stop. */
  #turns = new Set<string>();

  /** Shows conversation `id` (or nothing), reading its branch from the engine. */
  async open(id: string | null): Promise<void> {
    if (id !== this.conversationId) await teardownApps();
    this.conversationId = id;
    this.state = { ...emptyState(), running: id !== null && this.#turns.has(id) };
    this.hasOlder = false;
    if (id !== null) await this.reload();
  }

  /** Whether messages older than the first one shown are left to read. */
  hasOlder = $state(false);
  #loadingOlder = false;

  /** Re-reads the shown branch (after a turn ends, or a branch switch): its last page, or as
   * many messages as were shown. */
  async reload(): Promise<void> {
    const id = this.conversationId;
    if (id === null) return;
    const limit = Math.max(PAGE_SIZE, this.state.messages.length + 2);
    try {
      const messages = await api.conversationMessages(id, { limit });
      if (this.conversationId !== id) return;
      const { running, error, lastEnd } = this.state;
      this.state = { ...fromMessages(messages), running, error, lastEnd };
      this.hasOlder = messages.length === limit;
    } catch (error) {
      reportError(error);
    }
  }

  /** Reads the page of messages before the first one shown (scrolling up a long conversation). */
  async loadOlder(): Promise<void> {
    const id = this.conversationId;
    const first = this.state.messages[0];
    if (id === null || !first || !this.hasOlder || this.#loadingOlder) return;
    this.#loadingOlder = true;
    try {
      const older = await api.conversationMessages(id, { before: first.id, limit: PAGE_SIZE });
      if (this.conversationId !== id || this.state.messages[0]?.id !== first.id) return;
      const calls = { ...callsFromMessages(older), ...this.state.calls };
      this.state = { ...this.state, messages: [...older, ...this.state.messages], calls };
      this.hasOlder = older.length === PAGE_SIZE;
    } catch (error) {
      reportError(error);
    } finally {
      this.#loadingOlder = false;
    }
  }

  /** The user's text of the turn being started, shown as soon as the engine stored it. */
  private pending: Pending | null = null;

  private onEvents(id: string, batch: ChatEvent[]): void {
    if (batch.some((e) => e.type === 'finished')) this.#turns.delete(id);
    if (this.conversationId !== id) return;
    let s = this.state;
    for (const e of batch) {
      if (e.type === 'started' && this.pending) s = withUserMessage(s, id, e.user_message_id, this.pending);
      s = applyEvent(s, e, id);
    }
    this.state = s;
    for (const e of batch) {
      if (e.type === 'started') this.pending = null;
      if (e.type === 'titled') conversations.setTitle(id, e.title);
      if (e.type === 'finished') void this.reload();
    }
  }

  private async start(
    run: (onEvents: (b: ChatEvent[]) => void) => Promise<void>,
    pending: Pending | null = null,
  ): Promise<void> {
    const id = this.conversationId;
    if (id === null || this.state.running) return;
    this.pending = pending;
    this.state = { ...this.state, running: true, error: null };
    this.#turns.add(id);
    try {
      await run((batch) => this.onEvents(id, batch));
    } catch (error) {
      this.#turns.delete(id);
      if (this.conversationId === id) this.state = { ...this.state, running: false };
      reportError(error);
    }
  }

  send(text: string, attachments: Attachment[] = [], files: PreparedFile[] = []): Promise<void> {
    const id = this.conversationId;
    const parts = files.map((f) => f.part);
    return this.start((on) => api.sendMessage(id ?? '', text, on, attachments, parts), { text, replacing: null, attachments, files: parts });
  }

  /** Deletes a message and what hangs under it, then shows the branch left; false (reported) on failure. */
  async deleteMessage(messageId: string): Promise<boolean> {
    try {
      await deleteMessage(messageId);
      await this.reload();
      return true;
    } catch (error) {
      reportError(error);
      return false;
    }
  }

  regenerate(): Promise<void> {
    const id = this.conversationId;
    const lastUser = this.state.messages.map((m) => m.role).lastIndexOf('user');
    if (!this.state.running && lastUser >= 0) {
      this.state = { ...this.state, messages: this.state.messages.slice(0, lastUser + 1) };
    }
    return this.start((on) => api.regenerate(id ?? '', on));
  }

  edit(messageId: string, text: string): Promise<void> {
    return this.start((on) => api.editAndResend(messageId, text, on), { text, replacing: messageId });
  }

  async stop(): Promise<void> {
    if (this.conversationId === null) return;
    try {
      await api.stopGeneration(this.conversationId);
    } catch (error) {
      reportError(error);
    }
  }

  /** Answers an approval question; resolves to whether the engine took the answer (a
   * failure is reported, and the question can be answered again). */
  async answer(approvalId: string, answer: ApprovalAnswer): Promise<boolean> {
    try {
      await api.answerApproval(approvalId, answer);
      return true;
    } catch (error) {
      reportError(error);
      return false;
    }
  }

  /** The ids of a message's alternatives (its siblings), itself included. */
  siblings(messageId: string): Promise<string[]> {
    return api.messageSiblings(messageId);
  }

  /** Cancels, on its server, the task tool call `callId` runs as; false (reported) on failure. */
  async cancelTask(callId: string): Promise<boolean> {
    try {
      await api.cancelTask(callId);
      return true;
    } catch (error) {
      reportError(error);
      return false;
    }
  }

  async switchTo(messageId: string): Promise<void> {
    try {
      await api.switchBranch(messageId);
      await this.reload();
    } catch (error) {
      reportError(error);
    }
  }
}

/** The user's message of a turn being started; an edit keeps the old version's attachments. */
type Pending = { text: string; replacing: string | null; attachments?: Attachment[]; files?: ContentPart[] };

/** Shows the user's stored message at once (an edit replaces its old version and what followed). */
function withUserMessage(s: ChatState, conversationId: string, id: string, pending: Pending): ChatState {
  const cut = pending.replacing ? s.messages.findIndex((m) => m.id === pending.replacing) : -1;
  const kept = cut >= 0 ? s.messages.slice(0, cut) : s.messages;
  const now = Date.now();
  const message: Message = {
    id,
    conversationId,
    parentId: kept[kept.length - 1]?.id ?? null,
    role: 'user',
    content: userContent(s, pending),
    status: 'complete',
    model: null,
    usage: null,
    error: null,
    createdAt: now,
    updatedAt: now,
  };
  return { ...s, messages: [...kept, message] };
}

/** The parts of the user's message as the engine stores them: text, then attachments. */
function userContent(s: ChatState, pending: Pending): ContentPart[] {
  const old = pending.replacing ? s.messages.find((m) => m.id === pending.replacing) : undefined;
  const kept = old ? old.content.filter((p) => ['resource', 'image', 'image_ref', 'file'].includes(p.type)) : [];
  const attached: ContentPart[] = (pending.attachments ?? []).map((a) => ({ type: 'resource', ...a }));
  const text: ContentPart[] = pending.text.trim() ? [{ type: 'text', text: pending.text }] : [];
  return [...text, ...kept, ...attached, ...(pending.files ?? [])];
}

export const chat = new ChatSession();
