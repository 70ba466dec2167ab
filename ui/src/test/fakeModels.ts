// The models-folder commands of the fake backend: the models with their facts, import, remove,
// the built-in provider's default (added like the engine does when there is none). Downloads
// are left to each test (through `extra`), which controls their progress and outcome.
import type { CatalogueModel, IpcError, LocalModel, ProviderView } from '../bindings';
import { providerView, type ProviderFake } from './fakeProviders';
import { UNHANDLED } from './fakeServers';

/** A model as the engine lists it: SmolLM2-like facts unless told otherwise. */
export function localModel(name: string, fields: Partial<LocalModel> = {}): LocalModel {
  return {
    name,
    size: 98_362_432,
    info: {
      architecture: 'llama',
      sizeLabel: '135M',
      quantization: 'Q4_1',
      contextLength: 8192,
      supportsTools: true,
      hasTemplate: true,
    },
    ...fields,
  };
}

/** Two catalogue entries like the engine's; the larger recommended. */
export const CATALOGUE: CatalogueModel[] = [
  {
    id: 'qwen2.5-0.5b-instruct',
    name: 'Qwen2.5 0.5B Instruct',
    file: 'qwen2.5-0.5b-instruct-q4_k_m.gguf',
    url: 'https://huggingface.co/Qwen/Qwen2.5-0.5B-Instruct-GGUF/resolve/main/qwen2.5-0.5b-instruct-q4_k_m.gguf',
    size: 491_400_032,
    sha256: '74a4da8c9fdbcd15bd1f6d01d621410d31c6fc00986f5eb687824e7b93d7a9db',
    parameters: '0.5B',
    quantization: 'Q4_K_M',
    contextLength: 32768,
    license: 'Apache-2.0',
    minMemoryGib: 2,
    recommended: false,
  },
  {
    id: 'qwen3-4b',
    name: 'Qwen3 4B',
    file: 'Qwen3-4B-Q4_K_M.gguf',
    url: 'https://huggingface.co/unsloth/Qwen3-4B-GGUF/resolve/main/Qwen3-4B-Q4_K_M.gguf',
    size: 2_497_281_312,
    sha256: 'f6f851777709861056efcdad3af01da38b31223a3ba26e61a4f8bf3a2195813a',
    parameters: '4.0B',
    quantization: 'Q4_K_M',
    contextLength: 32768,
    license: 'Apache-2.0',
    minMemoryGib: 8,
    recommended: true,
  },
];

function find(models: LocalModel[], name: string): LocalModel {
  const model = models.find((m) => m.name === name || m.name === `${name}.gguf`);
  if (!model) throw { kind: 'not_found', message: `no model named "${name}" in /data/models` } satisfies IpcError;
  return model;
}

function setDefault(providers: ProviderFake, name: string): ProviderView {
  let view = [...providers.views.values()].find((v) => v.provider.kind === 'local');
  if (!view) {
    view = providerView({ name: 'On this computer', preset: 'local' });
  }
  const next = { ...view, provider: { ...view.provider, settings: { ...view.provider.settings, defaultModel: name } } };
  providers.views.set(next.provider.id, next);
  return next;
}

/** Handles a models command, or returns UNHANDLED. */
export function modelCommand(models: LocalModel[], providers: ProviderFake, cmd: string, args: Record<string, unknown>): unknown {
  switch (cmd) {
    case 'model_catalogue':
      return structuredClone(CATALOGUE);
    case 'list_models':
      return [...models].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    case 'import_model': {
      const path = String(args.path);
      const name = path.split('/').pop() ?? path;
      const model = localModel(name);
      models.push(model);
      return model;
    }
    case 'remove_model': {
      const model = find(models, String(args.name));
      models.splice(models.indexOf(model), 1);
      return null;
    }
    case 'set_default_local_model':
      return setDefault(providers, find(models, String(args.name)).name);
    case 'cancel_model_download':
      return null;
    default:
      return UNHANDLED;
  }
}
