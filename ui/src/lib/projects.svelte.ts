// The projects in the sidebar: loaded with their conversation counts (kept fresh when chats are
// made, moved or deleted), the one the sidebar shows, and the commands that create, edit, delete
// them and move conversations between them. Failures of the dialogs' commands reject (the dialog
// shows them); the rest go to the error banner.
import * as api from '../api';
import type { Project, ProjectConversations, ProjectDraft, ProjectSummary } from '../bindings';
import { conversations } from './conversations.svelte';
import { reportError } from './errors.svelte';
import { CONVERSATIONS_PAINTED, markNextPaint } from './perfMarks';

/** The drag data type a conversation row carries (its id), dropped on a project to move it. */
export const CONVERSATION_DRAG = 'application/x-switchboard-conversation';

class ProjectList {
  items = $state<ProjectSummary[]>([]);
  loaded = $state(false);

  constructor() {
    conversations.onCountsChanged(() => void this.load());
  }

  /** The project the sidebar shows; undefined for the chats in no project. */
  get current(): Project | undefined {
    const id = conversations.project;
    return id === null ? undefined : this.find(id);
  }

  find(id: string): Project | undefined {
    return this.items.find((s) => s.project.id === id)?.project;
  }

  async load(): Promise<void> {
    try {
      this.items = await api.listProjects();
      this.loaded = true;
    } catch (error) {
      reportError(error);
    }
  }

  /** Shows project `id`'s conversations in the sidebar (null: the chats in no project). */
  async open(id: string | null): Promise<void> {
    await conversations.show(id);
    markNextPaint(CONVERSATIONS_PAINTED);
  }

  /** Creates a project and shows it; rejects with the engine's error. */
  async create(draft: ProjectDraft): Promise<Project> {
    const made = await api.createProject(draft);
    await this.load();
    await this.open(made.id);
    return made;
  }

  /** Saves a project's fields; rejects with the engine's error. */
  async update(id: string, draft: ProjectDraft): Promise<Project> {
    const saved = await api.updateProject(id, draft);
    this.items = this.items.map((s) => (s.project.id === id ? { ...s, project: saved } : s));
    return saved;
  }

  /** Deletes a project, keeping or deleting its conversations; the sidebar goes back to the
   * chats in no project when it showed it. Rejects with the engine's error. */
  async remove(id: string, what: ProjectConversations): Promise<void> {
    await api.deleteProject(id, what);
    this.items = this.items.filter((s) => s.project.id !== id);
    if (conversations.project === id) await this.open(null);
    else if (conversations.project === null && what === 'keep') await conversations.load();
  }

  /** Moves conversations into `project` (null: out of any); false when it failed (reported). */
  async move(ids: string[], project: string | null): Promise<boolean> {
    try {
      await api.moveConversations(ids, project);
    } catch (error) {
      reportError(error);
      return false;
    }
    conversations.moved(ids, project);
    return true;
  }

  /** Forgets everything (tests). */
  reset(): void {
    this.items = [];
    this.loaded = false;
  }
}

export const projects = new ProjectList();
