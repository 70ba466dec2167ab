// The sidebar's conversation list: the chats in no project, or those of the project the sidebar
// shows; loaded page by page, kept in the engine's order, and updated in place by the commands.
// Failures go to the error banner.
import * as api from '../api';
import type { Conversation, ConversationPatch, ListScope, SearchHit } from '../bindings';
import { compareConversations } from './dates';
import { reportError } from './errors.svelte';
import { CONVERSATIONS_PAINTED, markNextPaint } from './perfMarks';

export const PAGE_SIZE = 50;

class ConversationList {
  items = $state<Conversation[]>([]);
  nextCursor = $state<string | null>(null);
  loading = $state(false);
  loaded = $state(false);
  creating = $state(false);
  /** The conversation whose title is being edited. */
  editingId = $state<string | null>(null);
  /** The project listed (its id); null: the chats in no project. New chats are made in it. */
  project = $state<string | null>(null);
  /** Conversations hidden while their deletion can still be undone (never listed again). */
  private hidden = new Set<string>();
  /** Bumped on every switch of project, so a page for the one before is dropped. */
  private generation = 0;
  /** Told when conversations were added to or taken out of a project (its count changed). */
  private countListeners = new Set<() => void>();

  private get scope(): ListScope {
    return this.project === null ? 'unfiled' : { project: this.project };
  }

  /** Calls `listener` whenever a project's conversation count may have changed. */
  onCountsChanged(listener: () => void): () => void {
    this.countListeners.add(listener);
    return () => this.countListeners.delete(listener);
  }

  /** Says that a project's conversation count may have changed. */
  countsChanged(): void {
    for (const listener of this.countListeners) listener();
  }

  /** Lists project `project` (null: the chats in no project) from its first page. */
  async show(project: string | null): Promise<void> {
    if (project === this.project && this.loaded) return;
    this.project = project;
    this.generation++;
    this.items = [];
    this.nextCursor = null;
    this.loaded = false;
    this.editingId = null;
    this.loading = false;
    await this.load();
  }

  /** Takes conversations `ids` off the list when they moved to another project than the one
   * shown (they are listed there). */
  moved(ids: string[], project: string | null): void {
    if (project === this.project) return;
    const gone = new Set(ids);
    this.items = this.items.filter((c) => !gone.has(c.id));
    this.countsChanged();
  }

  get hasMore(): boolean {
    return this.nextCursor !== null;
  }

  find(id: string): Conversation | undefined {
    return this.items.find((c) => c.id === id);
  }

  /** Loads the first page, replacing whatever was loaded. */
  async load(): Promise<void> {
    this.loading = true;
    const generation = this.generation;
    try {
      const page = await api.listConversations({ limit: PAGE_SIZE }, this.scope);
      if (generation !== this.generation) return;
      // A conversation created while the page was on its way stays listed.
      const shown = page.items.filter((c) => !this.hidden.has(c.id));
      const listed = new Set(shown.map((c) => c.id));
      const local = this.items.filter((c) => !listed.has(c.id));
      this.items = [...shown, ...local].sort(compareConversations);
      this.nextCursor = page.nextCursor;
      this.loaded = true;
      markNextPaint(CONVERSATIONS_PAINTED);
    } catch (error) {
      reportError(error);
    } finally {
      if (generation === this.generation) this.loading = false;
    }
  }

  /** Appends the next page, if there is one. */
  async loadMore(): Promise<void> {
    const cursor = this.nextCursor;
    if (cursor === null || this.loading) return;
    this.loading = true;
    const generation = this.generation;
    try {
      const page = await api.listConversations({ limit: PAGE_SIZE, cursor }, this.scope);
      if (generation !== this.generation) return;
      // Rows created or moved locally since the first page may come back again: keep ours.
      const known = new Set(this.items.map((c) => c.id));
      const fresh = page.items.filter((c) => !known.has(c.id) && !this.hidden.has(c.id));
      this.items = [...this.items, ...fresh].sort(compareConversations);
      this.nextCursor = page.nextCursor;
    } catch (error) {
      reportError(error);
    } finally {
      if (generation === this.generation) this.loading = false;
    }
  }

  /** Creates a conversation from an assistant (the default one when none is given) in the
   * project shown, lists it and starts editing its title. */
  async create(assistant: string | null = null): Promise<Conversation | null> {
    if (this.creating) return null;
    this.creating = true;
    try {
      const created = await api.newChat(assistant, this.project);
      this.upsert(created);
      this.editingId = created.id;
      if (created.projectId) this.countsChanged();
      return created;
    } catch (error) {
      reportError(error);
      return null;
    } finally {
      this.creating = false;
    }
  }

  /** Creates a conversation for the first message of a new chat (from `assistant`, else the
   * default assistant) in the project shown and lists it (no title editing); rejects with the
   * engine's error. */
  async startNew(assistant: string | null = null): Promise<Conversation> {
    const created = await api.newChat(assistant, this.project);
    this.upsert(created);
    if (created.projectId) this.countsChanged();
    return created;
  }

  /** Changes a conversation's provider, model or settings; a failure is reported. */
  async update(id: string, patch: ConversationPatch): Promise<boolean> {
    try {
      this.upsert(await api.updateConversation(id, patch));
      return true;
    } catch (error) {
      reportError(error);
      return false;
    }
  }

  /** The first `limit` messages matching `query`, leaving out conversations being deleted. */
  async search(query: string, limit: number): Promise<SearchHit[]> {
    const page = await api.searchMessages(query, { limit });
    return page.items.filter((hit) => !this.hidden.has(hit.conversationId));
  }

  /** Renames optimistically: the new title shows at once and reverts if the engine refuses it. */
  async rename(id: string, title: string): Promise<boolean> {
    const before = this.find(id);
    if (before) this.replace({ ...before, title });
    try {
      this.upsert(await api.renameConversation(id, title));
      return true;
    } catch (error) {
      const now = this.find(id);
      if (before && now && now.title === title) this.replace({ ...now, title: before.title });
      reportError(error);
      return false;
    }
  }

  async setPinned(id: string, pinned: boolean): Promise<boolean> {
    try {
      this.upsert(await api.setConversationPinned(id, pinned));
      return true;
    } catch (error) {
      reportError(error);
      return false;
    }
  }

  /** Takes a conversation off the list until `unhide` (its deletion is pending); returns it. */
  hide(id: string): Conversation | undefined {
    const row = this.find(id);
    this.hidden.add(id);
    this.items = this.items.filter((c) => c.id !== id);
    if (this.editingId === id) this.editingId = null;
    return row;
  }

  /** Lists a hidden conversation again (`row`), or just forgets it was hidden (deleted). */
  unhide(id: string, row?: Conversation): void {
    this.hidden.delete(id);
    if (!row) this.countsChanged();
    else if ((row.projectId ?? null) === this.project) this.upsert(row);
  }

  isHidden(id: string): boolean {
    return this.hidden.has(id);
  }

  /** Lists a conversation made elsewhere (e.g. by sending the first message of a new chat). */
  add(conversation: Conversation): void {
    this.upsert(conversation);
  }

  /** Shows a title the engine set (the model named the conversation). */
  setTitle(id: string, title: string): void {
    const c = this.find(id);
    if (c) this.replace({ ...c, title });
  }

  /** Forgets everything (tests). */
  reset(): void {
    this.items = [];
    this.nextCursor = null;
    this.loading = false;
    this.loaded = false;
    this.creating = false;
    this.editingId = null;
    this.project = null;
    this.generation++;
    this.hidden.clear();
  }

  private replace(conversation: Conversation): void {
    this.items = this.items.map((c) => (c.id === conversation.id ? conversation : c));
  }

  private upsert(conversation: Conversation): void {
    const others = this.items.filter((c) => c.id !== conversation.id);
    this.items = [conversation, ...others].sort(compareConversations);
  }
}

export const conversations = new ConversationList();
