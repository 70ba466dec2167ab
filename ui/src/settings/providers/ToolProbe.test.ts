import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, expect, test } from 'vitest';
import type { ModelProbe, ProviderView } from '../../bindings';
import { probes } from '../../lib/probes.svelte';
import { installFakeBackend } from '../../test/fakeBackend';
import { localModel } from '../../test/fakeModels';
import { providerView } from '../../test/fakeProviders';
import { resetAppState } from '../../test/reset';
import ModelsSettings from '../models/ModelsSettings.svelte';
import ProvidersSettings from './ProvidersSettings.svelte';

beforeEach(() => {
  resetAppState();
  probes.reset();
});

function probe(view: ProviderView, model: string, support: ModelProbe['support'], note: string | null = null): ModelProbe {
  return { providerId: view.provider.id, model, support, note, durationMs: 1200, checkedAt: 1_700_000_000_000 };
}

/** A fake backend whose probe commands answer from `kept` and `next` (the next probe's result). */
function withProbes(view: ProviderView, kept: ModelProbe[], next: (model: string) => ModelProbe, models = ['qwen3:8b', 'llama3.2']) {
  return installFakeBackend([], {
    providers: [view],
    models: { [view.provider.id]: models.map((id) => ({ id, name: null })) },
    extra: (cmd, args) => {
      if (cmd === 'model_probes') return kept.filter((p) => p.providerId === args.id);
      if (cmd === 'probe_model') return next(String(args.model));
      return undefined;
    },
  });
}

const row = (model: string) => screen.getByRole('rowheader', { name: model }).closest('tr')!;

test('each model shows what the probe found, unknown with its reason, and check again runs it', async () => {
  const view = providerView({ name: 'Ollama' });
  const kept = [probe(view, 'qwen3:8b', 'native', 'called the tool with a native call'), probe(view, 'llama3.2', 'unknown', 'network error: connection refused')];
  const backend = withProbes(view, kept, (model) => probe(view, model, 'prompt', 'wrote the call as text'));
  const user = userEvent.setup();
  render(ProvidersSettings);
  await user.click(within(await screen.findByRole('article', { name: 'Ollama' })).getByRole('button', { name: 'Models' }));
  await screen.findByRole('table');

  expect(within(row('qwen3:8b')).getByTestId('tool-probe')).toHaveTextContent('Calls tools natively');
  expect(within(row('llama3.2')).getByTestId('tool-probe')).toHaveTextContent('Could not check tool use: network error: connection refused');
  expect(backend.callsTo('model_probes')).toEqual([{ id: view.provider.id }]);

  await user.click(screen.getByRole('button', { name: 'Check again how llama3.2 calls tools' }));
  await waitFor(() => expect(within(row('llama3.2')).getByTestId('tool-probe')).toHaveTextContent('Calls tools only when they are described in the prompt'));
  expect(backend.callsTo('probe_model')).toEqual([{ id: view.provider.id, model: 'llama3.2' }]);
});

test('a model chosen as the default is probed once when it never was, in the background', async () => {
  const view = providerView({ name: 'Ollama' });
  let answer: (probe: ModelProbe) => void = () => {};
  const pending = new Promise<ModelProbe>((resolve) => (answer = resolve));
  const backend = withProbes(view, [probe(view, 'qwen3:8b', 'none')], () => pending as unknown as ModelProbe);
  const user = userEvent.setup();
  render(ProvidersSettings);
  await user.click(within(await screen.findByRole('article', { name: 'Ollama' })).getByRole('button', { name: 'Models' }));
  await screen.findByRole('table');
  expect(within(row('llama3.2')).getByTestId('tool-probe')).toHaveTextContent('Tool use not checked yet');

  await user.click(screen.getByRole('radio', { name: 'Use qwen3:8b by default' }));
  await user.click(screen.getByRole('radio', { name: 'Use llama3.2 by default' }));
  // The default is saved at once; the probe of the model never probed runs meanwhile.
  expect(screen.getByRole('radio', { name: 'Use llama3.2 by default' })).toBeChecked();
  await waitFor(() => expect(within(row('llama3.2')).getByTestId('tool-probe')).toHaveTextContent('Checking how it calls tools…'));
  expect(backend.callsTo('probe_model')).toEqual([{ id: view.provider.id, model: 'llama3.2' }]);

  answer(probe(view, 'llama3.2', 'native'));
  await waitFor(() => expect(within(row('llama3.2')).getByTestId('tool-probe')).toHaveTextContent('Calls tools natively'));
  expect(within(row('qwen3:8b')).getByTestId('tool-probe')).toHaveTextContent('Did not call a tool when asked');
});

test('a model of the models folder shows its probe, held-only in the built-in model’s words', async () => {
  const local = providerView({ name: 'On this computer', preset: 'local' });
  const backend = installFakeBackend([], {
    providers: [local],
    localModels: [localModel('SmolLM2.gguf')],
    extra: (cmd) => {
      if (cmd === 'model_probes') return [probe(local, 'SmolLM2.gguf', 'prompt', 'called it when held')];
      if (cmd === 'probe_model') return probe(local, 'SmolLM2.gguf', 'none');
      return undefined;
    },
  });
  const user = userEvent.setup();
  render(ModelsSettings);
  const card = (await screen.findAllByTestId('model-row'))[0]!;
  await waitFor(() => expect(within(card).getByTestId('tool-probe')).toHaveTextContent('Calls tools only when its answer is held to the call’s form'));
  await user.click(within(card).getByRole('button', { name: 'Check again how SmolLM2.gguf calls tools' }));
  await waitFor(() => expect(within(card).getByTestId('tool-probe')).toHaveTextContent('Did not call a tool when asked'));
  expect(backend.callsTo('probe_model')).toEqual([{ id: local.provider.id, model: 'SmolLM2.gguf' }]);
});
