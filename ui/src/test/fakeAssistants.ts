// The assistant commands of the fake backend: an in-memory `assistants` table with the
// engine's rules the UI depends on (unique names regardless of case, "(copy)" names, the
// default one), the shipped starters, and the read-only-tools switch.
import type { Assistant, AssistantDraft, IpcError, Starter } from '../bindings';
import { UNHANDLED } from './fakeServers';

export type AssistantFake = {
  rows: Map<string, Assistant>;
  defaultId: string | null;
  autoAllowReadOnly: boolean;
};

export const STARTERS: Starter[] = [
  {
    key: 'translator',
    icon: '🌐',
    name: { en: 'Translator', 'zh-CN': '翻译' },
    systemPrompt: { en: 'You translate.', 'zh-CN': '你是翻译。' },
    settings: { temperature: 0.2 },
  },
];

let counter = 0;

export function assistant(fields: Partial<Assistant> & { name: string }): Assistant {
  return {
    id: `a${++counter}`,
    icon: '🤖',
    systemPrompt: '',
    providerId: null,
    model: null,
    settings: {},
    createdAt: 0,
    updatedAt: 0,
    ...fields,
  };
}

const invalid = (message: string): IpcError => ({ kind: 'invalid_input', message });

function taken(fake: AssistantFake, name: string, except?: string): boolean {
  return [...fake.rows.values()].some((a) => a.id !== except && a.name.toLowerCase() === name.toLowerCase());
}

function write(fake: AssistantFake, id: string | null, draft: AssistantDraft): Assistant {
  const name = draft.name.trim();
  if (!name) throw invalid('an assistant needs a name');
  if (taken(fake, name, id ?? undefined)) throw invalid(`an assistant named "${name}" already exists`);
  const row = assistant({
    ...(id ? fake.rows.get(id) : {}),
    name,
    icon: draft.icon,
    systemPrompt: draft.systemPrompt,
    providerId: draft.providerId ?? null,
    model: draft.model ?? null,
    settings: draft.settings ?? {},
  });
  if (id) row.id = id;
  fake.rows.set(row.id, row);
  return row;
}

/** Handles an assistant command, or returns UNHANDLED. */
export function assistantCommand(fake: AssistantFake, cmd: string, args: Record<string, unknown>): unknown {
  switch (cmd) {
    case 'list_assistants':
      return [...fake.rows.values()].sort((a, b) => a.name.localeCompare(b.name));
    case 'create_assistant':
      return write(fake, null, args.draft as AssistantDraft);
    case 'update_assistant':
      return write(fake, String(args.id), args.draft as AssistantDraft);
    case 'duplicate_assistant': {
      const original = fake.rows.get(String(args.id));
      if (!original) throw { kind: 'not_found', message: 'no such assistant' } satisfies IpcError;
      let name = `${original.name} (copy)`;
      for (let i = 2; taken(fake, name); i++) name = `${original.name} (copy) (${i})`;
      return write(fake, null, { ...original, name, providerId: original.providerId ?? undefined, model: original.model ?? undefined });
    }
    case 'delete_assistant':
      fake.rows.delete(String(args.id));
      if (fake.defaultId === args.id) fake.defaultId = null;
      return null;
    case 'default_assistant':
      return fake.defaultId;
    case 'set_default_assistant':
      fake.defaultId = (args.id as string | null) ?? null;
      return null;
    case 'assistant_starters':
      return STARTERS;
    case 'add_starter_assistant': {
      const s = STARTERS.find((x) => x.key === args.key)!;
      const lang = String(args.lang);
      return write(fake, null, {
        name: s.name[lang] ?? s.name.en!,
        icon: s.icon,
        systemPrompt: s.systemPrompt[lang] ?? s.systemPrompt.en!,
        settings: s.settings,
      });
    }
    case 'auto_allow_read_only':
      return fake.autoAllowReadOnly;
    case 'set_auto_allow_read_only':
      fake.autoAllowReadOnly = Boolean(args.on);
      return null;
    default:
      return UNHANDLED;
  }
}
