// The provider commands of the fake backend: presets, providers with a masked key status (the
// fake keeps keys apart from the views, like the keychain), models and connection tests.
import type { IpcError, ModelInfo, NewProvider, Preset, ProviderSettings, ProviderView } from '../bindings';
import { UNHANDLED } from './fakeServers';

export const FAKE_PRESETS: Preset[] = [
  { id: 'openai', name: 'OpenAI', kind: 'openai', baseUrl: 'https://api.openai.com/v1', keyEnv: 'OPENAI_API_KEY', needsKey: true },
  { id: 'ollama', name: 'Ollama', kind: 'ollama', baseUrl: 'http://127.0.0.1:11434', keyEnv: null, needsKey: false },
  { id: 'deepseek', name: 'DeepSeek', kind: 'openai', baseUrl: 'https://api.deepseek.com', keyEnv: null, needsKey: true },
  { id: 'openai-compatible', name: 'OpenAI-compatible server', kind: 'openai', baseUrl: '', keyEnv: null, needsKey: false },
  { id: 'local', name: 'On this computer', kind: 'local', baseUrl: '', keyEnv: null, needsKey: false },
];

export type ProviderFake = {
  views: Map<string, ProviderView>;
  keys: Map<string, string>;
  models: Map<string, ModelInfo[]>;
};

let counter = 0;

const masked = (key: string) => `••••${key.slice(-4)}`;

export function providerView(fields: { name: string; preset?: string; baseUrl?: string; settings?: Partial<ProviderSettings> }): ProviderView {
  const preset = FAKE_PRESETS.find((p) => p.id === (fields.preset ?? 'ollama'))!;
  const now = Date.now();
  return {
    provider: {
      id: `p${++counter}`,
      name: fields.name,
      kind: preset.kind,
      baseUrl: fields.baseUrl ?? preset.baseUrl,
      headers: {},
      settings: { preset: preset.id, toolModes: {}, strictTools: false, ...(preset.keyEnv ? { keyEnv: preset.keyEnv } : {}), ...fields.settings },
      createdAt: now,
      updatedAt: now,
    },
    key: { source: null, masked: null },
  };
}

function find(fake: ProviderFake, id: string): ProviderView {
  const view = fake.views.get(id) ?? [...fake.views.values()].find((v) => v.provider.name === id);
  if (!view) throw { kind: 'not_found', message: `provider ${id} not found` } satisfies IpcError;
  return view;
}

function withKey(fake: ProviderFake, view: ProviderView): ProviderView {
  const key = fake.keys.get(view.provider.id);
  const next = { ...view, key: key ? { source: 'store' as const, masked: masked(key) } : { source: null, masked: null } };
  fake.views.set(view.provider.id, next);
  return next;
}

function add(fake: ProviderFake, input: NewProvider): ProviderView {
  if ([...fake.views.values()].some((v) => v.provider.name === input.name)) {
    throw { kind: 'invalid_input', message: `a provider named "${input.name}" already exists` } satisfies IpcError;
  }
  const view = providerView({ name: input.name, preset: input.preset, baseUrl: input.baseUrl });
  if (input.apiKey) fake.keys.set(view.provider.id, input.apiKey);
  return withKey(fake, view);
}

function models(fake: ProviderFake, id: string): ModelInfo[] {
  const view = find(fake, id);
  const list = fake.models.get(view.provider.id);
  if (!list) throw { kind: 'provider_unavailable', message: `could not connect to ${view.provider.baseUrl}: connection refused` } satisfies IpcError;
  return list;
}

/** Handles a provider command, or returns UNHANDLED. */
export function providerCommand(fake: ProviderFake, cmd: string, args: Record<string, unknown>): unknown {
  switch (cmd) {
    case 'list_presets':
      return FAKE_PRESETS;
    case 'list_providers':
      return [...fake.views.values()];
    case 'add_provider':
      return add(fake, args.input as NewProvider);
    case 'set_provider_key': {
      const view = find(fake, String(args.id));
      if (typeof args.key === 'string') fake.keys.set(view.provider.id, args.key);
      else fake.keys.delete(view.provider.id);
      return withKey(fake, view);
    }
    case 'set_provider_settings': {
      const view = find(fake, String(args.id));
      const settings = { ...(args.settings as ProviderSettings), preset: view.provider.settings.preset };
      return withKey(fake, { ...view, provider: { ...view.provider, settings } });
    }
    case 'remove_provider':
      fake.views.delete(find(fake, String(args.id)).provider.id);
      return null;
    case 'provider_models':
      return models(fake, String(args.id));
    case 'test_provider':
      return { models: models(fake, String(args.id)).length, latencyMs: 42 };
    case 'provider_default_model': {
      // As the engine: the set default, else the only or first listed model (kept as default).
      const view = find(fake, String(args.id));
      if (view.provider.settings.defaultModel) return view.provider.settings.defaultModel;
      const first = fake.models.get(view.provider.id)?.[0]?.id ?? null;
      if (first) fake.views.set(view.provider.id, { ...view, provider: { ...view.provider, settings: { ...view.provider.settings, defaultModel: first } } });
      return first;
    }
    default:
      return UNHANDLED;
  }
}
