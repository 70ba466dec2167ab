// An in-memory stand-in for the Tauri commands, installed with `mockIPC`.
import { mockIPC } from '@tauri-apps/api/mocks';
import type { AppInfo, Assistant, BackupsOverview, RuntimesOverview, SyncOverview, Conversation, IpcError, ListScope, LocalModel, ModelInfo, NewConversation, PageRequest, Project, ProviderView, SamplingModel, ServerRecord } from '../bindings';
import { compareConversations } from '../lib/dates';
import { assistantCommand, type AssistantFake } from './fakeAssistants';
import { backupCommand, emptyBackups } from './fakeBackups';
import { noSync, syncCommand } from './fakeSync';
import { defaultDesktop, desktopCommand, type DesktopFake } from './fakeDesktop';
import { projectCommand } from './fakeProjects';
import { noRuntimes, runtimeCommand } from './fakeRuntimes';
import { capabilityCommand, type CapabilityFake } from './fakeInteractions';
import { modelCommand } from './fakeModels';
import { providerCommand, type ProviderFake } from './fakeProviders';
import { serverCommand, UNHANDLED } from './fakeServers';

export type Call = { cmd: string; args: Record<string, unknown> };

export const FAKE_APP_INFO: AppInfo = {
  version: '0.1.0-test',
  dataDir: '/home/test/.local/share/switchboard',
  logDir: '/home/test/.local/state/switchboard/logs',
  database: '/home/test/.local/share/switchboard/switchboard.db',
  schemaVersion: 1,
};

let idCounter = 0;

export function conversation(fields: Partial<Conversation> = {}): Conversation {
  const now = Date.now();
  return {
    id: `c${++idCounter}`,
    title: '',
    createdAt: now,
    updatedAt: now,
    pinned: false,
    archived: false,
    providerId: null,
    model: null,
    systemPrompt: null,
    settings: {},
    headId: null,
    ...fields,
  };
}

export type FakeBackend = {
  calls: Call[];
  callsTo(cmd: string): Record<string, unknown>[];
  /** Makes every later call of `cmd` reject with `error` (anything, not only an IpcError). */
  fail(cmd: string, error: unknown): void;
  rows(): Conversation[];
  /** Adds a conversation behind the window's back (as a sync or another process would). */
  add(conversation: Conversation): void;
  servers(): ServerRecord[];
  /** The provider side: views, the keys apart from them, and each provider's models. */
  providers: ProviderFake;
  /** The roots and the sampling model. */
  capabilities: CapabilityFake;
  /** The built-in model's models folder. */
  localModels: LocalModel[];
  /** The assistants, the default one and the read-only-tools switch. */
  assistants: AssistantFake;
  /** The database's backups and their schedule. */
  backups: BackupsOverview;
  /** The runtimes brought for servers, and their index. */
  runtimes: RuntimesOverview;
  /** The projects, by id. */
  projects: Map<string, Project>;
};

/** Answers commands the base fake does not know (return `undefined` to fall through). */
export type ExtraHandler = (cmd: string, args: Record<string, unknown>) => unknown;

/** What the fake backend starts with besides conversations. */
export type FakeSeed = {
  servers?: ServerRecord[];
  providers?: ProviderView[];
  /** Models by provider id; a provider without an entry is unreachable. */
  models?: Record<string, ModelInfo[]>;
  /** The root folders (absolute paths). */
  roots?: string[];
  /** The model that answers sampling requests. */
  sampling?: SamplingModel | null;
  /** The models in the built-in model's folder. */
  localModels?: LocalModel[];
  /** The assistants. */
  assistants?: Assistant[];
  /** The database's backups and their schedule (none, daily, seven kept, unless given). */
  backups?: BackupsOverview;
  /** The runtimes brought for servers (none, PyPI, unless given). */
  runtimes?: RuntimesOverview;
  /** The projects (none unless given). */
  projects?: Project[];
  /** Sync between computers (not set up unless given). */
  sync?: SyncOverview;
  /** The desktop integration's status and the quick window's context (defaults unless given). */
  desktop?: Partial<DesktopFake>;
  /** Asked first for every command the conversation fake does not handle. */
  extra?: ExtraHandler;
};

export function installFakeBackend(seed: Conversation[] = [], more: FakeSeed = {}): FakeBackend {
  const rows = new Map(seed.map((c) => [c.id, { ...c }]));
  const serverRows = new Map((more.servers ?? []).map((s) => [s.id, structuredClone(s)]));
  const providerFake: ProviderFake = {
    views: new Map((more.providers ?? []).map((v) => [v.provider.id, structuredClone(v)])),
    keys: new Map(),
    models: new Map(Object.entries(more.models ?? {})),
  };
  const capabilities: CapabilityFake = { roots: [...(more.roots ?? [])], sampling: more.sampling ?? null };
  const localModels: LocalModel[] = structuredClone(more.localModels ?? []);
  const assistantFake: AssistantFake = {
    rows: new Map((more.assistants ?? []).map((a) => [a.id, structuredClone(a)])),
    defaultId: null,
    autoAllowReadOnly: false,
  };
  const backups: BackupsOverview = structuredClone(more.backups ?? emptyBackups());
  const sync: SyncOverview = structuredClone(more.sync ?? noSync());
  const desktop: DesktopFake = { ...defaultDesktop(), ...structuredClone(more.desktop ?? {}) };
  const runtimes: RuntimesOverview = structuredClone(more.runtimes ?? noRuntimes());
  const projectRows = new Map((more.projects ?? []).map((p) => [p.id, structuredClone(p)]));
  const failures = new Map<string, unknown>();
  const calls: Call[] = [];

  const notFound = (id: string): IpcError => ({
    kind: 'not_found',
    message: `conversation ${id} not found`,
  });

  const get = (id: string): Conversation => {
    const row = rows.get(id);
    if (!row) throw notFound(id);
    return row;
  };

  mockIPC((cmd, payload) => {
    const args = (payload ?? {}) as Record<string, unknown>;
    calls.push({ cmd, args });
    if (failures.has(cmd)) throw failures.get(cmd);

    switch (cmd) {
      case 'app_info':
        return FAKE_APP_INFO;
      case 'list_conversations': {
        const page = args.page as PageRequest;
        const scope = (args.scope ?? 'unfiled') as ListScope;
        const inScope = (c: Conversation) =>
          scope === 'all' ? true : scope === 'unfiled' ? !c.projectId : c.projectId === scope.project;
        const sorted = [...rows.values()].filter((c) => !c.archived && inScope(c)).sort(compareConversations);
        const start = page.cursor ? sorted.findIndex((c) => c.id === page.cursor) + 1 : 0;
        const limit = page.limit || 50;
        const items = sorted.slice(start, start + limit);
        const more = start + limit < sorted.length;
        return { items, nextCursor: more ? items[items.length - 1]!.id : null };
      }
      case 'create_conversation': {
        const input = args.input as NewConversation;
        const created = conversation({ title: input.title ?? '', updatedAt: Date.now() + 1 });
        rows.set(created.id, created);
        return created;
      }
      case 'new_chat': {
        // As the engine: from the assistant given, else the default one; '' for none.
        const wanted = args.assistant as string | null;
        const from = assistantFake.rows.get(wanted === null ? (assistantFake.defaultId ?? '') : wanted);
        const created = conversation({
          updatedAt: Date.now() + 1,
          ...(args.project ? { projectId: String(args.project) } : {}),
          ...(from
            ? {
                providerId: from.providerId,
                model: from.model,
                systemPrompt: from.systemPrompt || null,
                settings: { ...(from.settings as object), assistant: from.id },
              }
            : {}),
        });
        rows.set(created.id, created);
        return created;
      }
      case 'rename_conversation': {
        const title = String(args.title).trim();
        if (!title) throw { kind: 'invalid_input', message: 'a title cannot be empty' } satisfies IpcError;
        const row = { ...get(String(args.id)), title };
        rows.set(row.id, row);
        return row;
      }
      case 'set_conversation_pinned': {
        const row = { ...get(String(args.id)), pinned: Boolean(args.pinned) };
        rows.set(row.id, row);
        return row;
      }
      case 'delete_conversation':
        get(String(args.id));
        rows.delete(String(args.id));
        return null;
      // Attachments and prices: nothing known unless a test's `extra` answers.
      case 'model_prices':
      case 'own_model_prices':
        return more.extra?.(cmd, args) ?? {};
      case 'set_model_prices':
        return more.extra?.(cmd, args) ?? null;
      case 'image_support':
        return more.extra?.(cmd, args) ?? null;
      // Install links the shell received: none unless a test's `extra` answers.
      case 'take_opened_links':
        return more.extra?.(cmd, args) ?? [];
      default: {
        const extra = more.extra?.(cmd, args);
        if (extra !== undefined) return extra;
        const answer = serverCommand(serverRows, cmd, args);
        if (answer !== UNHANDLED) return answer;
        const fromProviders = providerCommand(providerFake, cmd, args);
        if (fromProviders !== UNHANDLED) return fromProviders;
        const fromCapabilities = capabilityCommand(capabilities, cmd, args);
        if (fromCapabilities !== UNHANDLED) return fromCapabilities;
        const fromModels = modelCommand(localModels, providerFake, cmd, args);
        if (fromModels !== UNHANDLED) return fromModels;
        const fromAssistants = assistantCommand(assistantFake, cmd, args);
        if (fromAssistants !== UNHANDLED) return fromAssistants;
        const fromBackups = backupCommand(backups, cmd, args);
        if (fromBackups !== UNHANDLED) return fromBackups;
        const fromSync = syncCommand(sync, cmd, args);
        if (fromSync !== UNHANDLED) return fromSync;
        const fromDesktop = desktopCommand(desktop, cmd, args);
        if (fromDesktop !== UNHANDLED) return fromDesktop;
        const fromRuntimes = runtimeCommand(runtimes, cmd, args);
        if (fromRuntimes !== UNHANDLED) return fromRuntimes;
        const fromProjects = projectCommand(projectRows, rows, cmd, args);
        if (fromProjects !== UNHANDLED) return fromProjects;
        throw { kind: 'internal', message: `unknown command ${cmd}` } satisfies IpcError;
      }
    }
  }, { shouldMockEvents: true });

  return {
    calls,
    callsTo: (cmd) => calls.filter((c) => c.cmd === cmd).map((c) => c.args),
    fail: (cmd, error) => failures.set(cmd, error),
    rows: () => [...rows.values()],
    add: (c) => void rows.set(c.id, { ...c }),
    servers: () => [...serverRows.values()],
    providers: providerFake,
    capabilities,
    localModels,
    assistants: assistantFake,
    backups,
    runtimes,
    projects: projectRows,
  };
}
