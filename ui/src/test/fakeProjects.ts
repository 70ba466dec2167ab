// The projects side of the fake backend: projects kept in memory with the engine's rules (names
// unique regardless of case, counts of chats not archived, deleting keeps or deletes the chats).
import type { Conversation, IpcError, Project, ProjectDraft, ProjectSummary } from '../bindings';
import { UNHANDLED } from './fakeServers';

let made = 0;

export function project(fields: Partial<Project> = {}): Project {
  const now = Date.now();
  return { id: `p${++made}`, name: 'Project', icon: '', instructions: '', assistantId: null, servers: null, createdAt: now, updatedAt: now, ...fields };
}

export function projectCommand(
  state: Map<string, Project>,
  rows: Map<string, Conversation>,
  cmd: string,
  args: Record<string, unknown>,
): unknown {
  const named = (id: unknown): Project => {
    const found = state.get(String(id));
    if (!found) throw { kind: 'not_found', message: `project ${String(id)} not found` } satisfies IpcError;
    return found;
  };
  const checked = (draft: ProjectDraft, except: string | null): ProjectDraft => {
    const name = draft.name.trim();
    if (!name) throw { kind: 'invalid_input', message: 'a project needs a name' } satisfies IpcError;
    const clash = [...state.values()].some((p) => p.id !== except && p.name.toLowerCase() === name.toLowerCase());
    if (clash) throw { kind: 'invalid_input', message: `a project named "${name}" already exists` } satisfies IpcError;
    return { ...draft, name };
  };
  const fields = (d: ProjectDraft) => ({ name: d.name, icon: d.icon, instructions: d.instructions, assistantId: d.assistantId ?? null, servers: d.servers ?? null });
  switch (cmd) {
    case 'list_projects':
      return [...state.values()]
        .sort((a, b) => a.name.localeCompare(b.name))
        .map((p): ProjectSummary => ({ project: structuredClone(p), conversations: [...rows.values()].filter((c) => c.projectId === p.id && !c.archived).length }));
    case 'create_project': {
      const made = project(fields(checked(args.draft as ProjectDraft, null)));
      state.set(made.id, made);
      return structuredClone(made);
    }
    case 'update_project': {
      const here = named(args.id);
      const saved = { ...here, ...fields(checked(args.draft as ProjectDraft, here.id)), updatedAt: Date.now() };
      state.set(saved.id, saved);
      return structuredClone(saved);
    }
    case 'delete_project': {
      const here = named(args.id);
      let deleted = 0;
      for (const c of [...rows.values()].filter((c) => c.projectId === here.id)) {
        if (args.conversations === 'delete') {
          rows.delete(c.id);
          deleted++;
        } else rows.set(c.id, { ...c, projectId: undefined });
      }
      state.delete(here.id);
      return deleted;
    }
    case 'move_conversations': {
      const to = args.project === null || args.project === undefined ? undefined : named(args.project).id;
      let moved = 0;
      for (const id of args.ids as string[]) {
        const c = rows.get(id);
        if (c) {
          rows.set(id, { ...c, projectId: to });
          moved++;
        }
      }
      return moved;
    }
    default:
      return UNHANDLED;
  }
}
