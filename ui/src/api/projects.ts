// Projects: list, create, edit, delete, and moving conversations in and out
// (src-tauri/src/commands/projects.rs).
import type { Project, ProjectConversations, ProjectDraft, ProjectSummary } from '../bindings';
import * as commands from './commands';

export function listProjects(): Promise<ProjectSummary[]> {
  return commands.listProjects();
}

export function createProject(draft: ProjectDraft): Promise<Project> {
  return commands.createProject({ draft });
}

export function updateProject(id: string, draft: ProjectDraft): Promise<Project> {
  return commands.updateProject({ id, draft });
}

/** Deletes a project; its conversations are kept (outside any project) or deleted. */
export function deleteProject(id: string, conversations: ProjectConversations): Promise<number> {
  return commands.deleteProject({ id, conversations });
}

/** Moves conversations into `project` (null: out of any project). */
export function moveConversations(ids: string[], project: string | null): Promise<number> {
  return commands.moveConversations({ ids, project });
}
