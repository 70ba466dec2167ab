import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, expect, test } from 'vitest';
import type { LocalModel, ModelDownloadProgress } from '../../bindings';
import { installFakeBackend } from '../../test/fakeBackend';
import { CATALOGUE, localModel } from '../../test/fakeModels';
import { providerView } from '../../test/fakeProviders';
import { resetAppState } from '../../test/reset';
import ModelsSettings from './ModelsSettings.svelte';

beforeEach(() => resetAppState());

type Channel = { id: number };

/** Delivers messages on a channel the way Tauri does (indexed, to its callback). */
function deliver(channel: Channel, messages: ModelDownloadProgress[]) {
  const internals = (window as unknown as { __TAURI_INTERNALS__: { runCallback: (id: number, data: unknown) => void } })
    .__TAURI_INTERNALS__;
  messages.forEach((message, index) => internals.runCallback(channel.id, { index, message }));
}

const SMOL = localModel('SmolLM2-135M-Instruct.Q4_1.gguf');
const QWEN = localModel('Qwen3-0.6B-Q8_0.gguf', {
  size: 639_446_688,
  info: { architecture: 'qwen3', sizeLabel: '0.6B', quantization: 'Q8_0', contextLength: 40960, supportsTools: true, hasTemplate: true },
});
const PLAIN = localModel('plain.gguf', { size: 1_000_000, info: { ...SMOL.info!, supportsTools: false } });

function rows() {
  return screen.findAllByTestId('model-row');
}

test('the list shows each model with its size, quantization, parameters, context and a tools badge', async () => {
  installFakeBackend([], { localModels: [SMOL, QWEN, PLAIN] });
  render(ModelsSettings);
  const [qwen, smol, plain] = await rows();
  expect(qwen).toHaveTextContent('Qwen3-0.6B-Q8_0.gguf');
  expect(qwen).toHaveTextContent('639.4 MB');
  expect(qwen).toHaveTextContent('Q8_0');
  expect(qwen).toHaveTextContent('0.6B parameters');
  expect(qwen).toHaveTextContent('40960-token context');
  expect(within(qwen!).getByText('tools')).toBeInTheDocument();
  expect(within(plain!).queryByText('tools')).toBeNull();
  expect(smol).toHaveTextContent('98.4 MB');
});

test('an empty models folder says how to add one', async () => {
  installFakeBackend();
  render(ModelsSettings);
  expect(await screen.findByTestId('models-empty')).toHaveTextContent('Import a .gguf file');
});

test('set as default makes the model the built-in provider default and marks it', async () => {
  const local = providerView({ name: 'On this computer', preset: 'local', settings: { defaultModel: SMOL.name } });
  const backend = installFakeBackend([], { localModels: [SMOL, QWEN], providers: [local] });
  const user = userEvent.setup();
  render(ModelsSettings);
  const [qwen, smol] = await rows();
  await waitFor(() => expect(within(smol!).getByTestId('model-default')).toBeInTheDocument());
  expect(within(qwen!).queryByTestId('model-default')).toBeNull();

  await user.click(screen.getByRole('button', { name: `Set ${QWEN.name} as default` }));

  expect(backend.callsTo('set_default_local_model')).toEqual([{ name: QWEN.name }]);
  await waitFor(() => expect(within(qwen!).getByTestId('model-default')).toBeInTheDocument());
  expect(within(smol!).queryByTestId('model-default')).toBeNull();
});

test('remove asks first and deletes only after the confirmation', async () => {
  const backend = installFakeBackend([], { localModels: [SMOL] });
  const user = userEvent.setup();
  render(ModelsSettings);
  await rows();
  await user.click(screen.getByRole('button', { name: `Remove ${SMOL.name}` }));
  const dialog = screen.getByRole('alertdialog');
  expect(dialog).toHaveTextContent(`Delete “${SMOL.name}” from the models folder?`);
  await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
  expect(backend.callsTo('remove_model')).toEqual([]);

  await user.click(screen.getByRole('button', { name: `Remove ${SMOL.name}` }));
  await user.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Remove' }));
  expect(backend.callsTo('remove_model')).toEqual([{ name: SMOL.name }]);
  expect(await screen.findByTestId('models-empty')).toBeInTheDocument();
});

test('import asks for a .gguf file and lists the imported model', async () => {
  const backend = installFakeBackend([], { extra: (cmd) => (cmd === 'plugin:dialog|open' ? '/home/me/Tiny.gguf' : undefined) });
  const user = userEvent.setup();
  render(ModelsSettings);
  await screen.findByTestId('models-empty');
  await user.click(screen.getByRole('button', { name: 'Import .gguf…' }));
  expect(backend.callsTo('plugin:dialog|open')[0]).toMatchObject({ options: { filters: [{ extensions: ['gguf'] }] } });
  expect(backend.callsTo('import_model')).toEqual([{ path: '/home/me/Tiny.gguf' }]);
  expect(await screen.findByText('Tiny.gguf')).toBeInTheDocument();
});

/** A backend whose download waits for the test to deliver progress and finish or fail it. */
function downloading(localModels: LocalModel[] = []) {
  const state: { channel: Channel | null; finish: ((m: LocalModel) => void) | null; fail: ((e: unknown) => void) | null } = {
    channel: null,
    finish: null,
    fail: null,
  };
  const backend = installFakeBackend([], {
    localModels,
    extra: (cmd, args) => {
      if (cmd !== 'download_model') return undefined;
      state.channel = args.onProgress as Channel;
      return new Promise<LocalModel>((resolve, reject) => {
        state.finish = resolve;
        state.fail = reject;
      });
    },
  });
  return { backend, state };
}

const URL = 'https://huggingface.co/x/y/resolve/main/Tiny.gguf';

test('a download shows its progress in bytes and percent, then the new model', async () => {
  const { backend, state } = downloading();
  const user = userEvent.setup();
  render(ModelsSettings);
  await screen.findByTestId('models-empty');
  await user.type(screen.getByLabelText('URL of a .gguf file'), URL);
  await user.type(screen.getByLabelText('SHA-256 (optional)'), 'ab12');
  await user.click(screen.getByRole('button', { name: 'Download' }));
  await waitFor(() => expect(state.channel).not.toBeNull());
  expect(backend.callsTo('download_model')[0]).toMatchObject({ url: URL, sha256: 'ab12' });

  deliver(state.channel!, [
    { received: 0, total: 200_000_000 },
    { received: 50_000_000, total: 200_000_000 },
  ]);
  const progress = await screen.findByTestId('download-progress');
  await waitFor(() => expect(progress).toHaveTextContent('50.0 MB of 200.0 MB (25%)'));
  expect(within(progress).getByRole('button', { name: 'Cancel download' })).toBeInTheDocument();

  backend.localModels.push(localModel('Tiny.gguf'));
  state.finish!(localModel('Tiny.gguf'));
  expect(await screen.findByText('Tiny.gguf')).toBeInTheDocument();
  await waitFor(() => expect(screen.queryByTestId('download-progress')).toBeNull());
});

test('a downloaded model gets the tool-use probe of the built-in provider', async () => {
  const local = providerView({ name: 'On this computer', preset: 'local' });
  let finish: ((m: LocalModel) => void) | null = null;
  const backend = installFakeBackend([], {
    providers: [local],
    extra: (cmd, args) => {
      if (cmd === 'model_probes') return [];
      if (cmd === 'probe_model') return { providerId: args.id, model: args.model, support: 'native', checkedAt: 1, note: null };
      if (cmd !== 'download_model') return undefined;
      return new Promise<LocalModel>((resolve) => (finish = resolve));
    },
  });
  const user = userEvent.setup();
  render(ModelsSettings);
  await screen.findByTestId('models-empty');
  await user.type(screen.getByLabelText('URL of a .gguf file'), URL);
  await user.click(screen.getByRole('button', { name: 'Download' }));
  await waitFor(() => expect(finish).not.toBeNull());
  expect(backend.callsTo('probe_model')).toEqual([]);
  backend.localModels.push(localModel('Tiny.gguf'));
  finish!(localModel('Tiny.gguf'));
  await waitFor(() => expect(backend.callsTo('probe_model')).toEqual([{ id: local.provider.id, model: 'Tiny.gguf' }]));
});

test('the default model, never probed, gets the tool-use probe once the list shows it; the others wait', async () => {
  const local = providerView({ name: 'On this computer', preset: 'local', settings: { defaultModel: SMOL.name } });
  const backend = installFakeBackend([], {
    localModels: [SMOL, QWEN],
    providers: [local],
    extra: (cmd, args) => {
      if (cmd === 'model_probes') return [];
      if (cmd === 'probe_model') return { providerId: args.id, model: args.model, support: 'prompt', checkedAt: 1, note: null };
      return undefined;
    },
  });
  render(ModelsSettings);
  await rows();
  await waitFor(() => expect(backend.callsTo('probe_model')).toEqual([{ id: local.provider.id, model: SMOL.name }]));
});

test('a default model probed before is not probed again when the list shows it', async () => {
  const local = providerView({ name: 'On this computer', preset: 'local', settings: { defaultModel: SMOL.name } });
  const backend = installFakeBackend([], {
    localModels: [SMOL],
    providers: [local],
    extra: (cmd) => {
      if (cmd === 'model_probes') return [{ providerId: local.provider.id, model: SMOL.name, support: 'prompt', checkedAt: 1, note: null }];
      return undefined;
    },
  });
  render(ModelsSettings);
  await rows();
  await waitFor(() => expect(backend.callsTo('model_probes').length).toBeGreaterThan(0));
  await new Promise((r) => setTimeout(r, 50));
  expect(backend.callsTo('probe_model')).toEqual([]);
});

test('a failed download shows the error in words', async () => {
  const { state } = downloading();
  const user = userEvent.setup();
  render(ModelsSettings);
  await screen.findByTestId('models-empty');
  await user.type(screen.getByLabelText('URL of a .gguf file'), URL);
  await user.click(screen.getByRole('button', { name: 'Download' }));
  await waitFor(() => expect(state.fail).not.toBeNull());
  state.fail!({ kind: 'provider_unavailable', message: `cannot download ${URL}: the server answered HTTP 404` });
  expect(await screen.findByTestId('download-error')).toHaveTextContent(
    `The download failed: cannot download ${URL}: the server answered HTTP 404`,
  );
  expect(screen.queryByTestId('download-progress')).toBeNull();
});

test('cancel stops the download without calling it a failure', async () => {
  const { backend, state } = downloading();
  const user = userEvent.setup();
  render(ModelsSettings);
  await screen.findByTestId('models-empty');
  await user.type(screen.getByLabelText('URL of a .gguf file'), URL);
  await user.click(screen.getByRole('button', { name: 'Download' }));
  await waitFor(() => expect(state.channel).not.toBeNull());
  await user.click(await screen.findByRole('button', { name: 'Cancel download' }));
  expect(backend.callsTo('cancel_model_download')).toHaveLength(1);
  state.fail!({ kind: 'provider_unavailable', message: 'the download was cancelled' });
  await waitFor(() => expect(screen.queryByTestId('download-progress')).toBeNull());
  expect(screen.queryByTestId('download-error')).toBeNull();
});

test('the recommended models show their facts, mark the one for this computer and download it verified', async () => {
  const { backend, state } = downloading([localModel(CATALOGUE[0]!.file)]);
  const user = userEvent.setup();
  render(ModelsSettings);
  const [small, large] = await screen.findAllByTestId('catalogue-row');
  expect(large).toHaveTextContent('Qwen3 4B');
  expect(large).toHaveTextContent('2.5 GB · 4.0B · Q4_K_M');
  expect(large).toHaveTextContent('needs 8 GB of memory');
  expect(within(large!).getByTestId('catalogue-recommended')).toHaveTextContent('Recommended for this computer');
  expect(within(small!).queryByTestId('catalogue-recommended')).toBeNull();
  // Already in the models folder: nothing to download.
  expect(small).toHaveTextContent('Installed');
  expect(within(small!).queryByRole('button')).toBeNull();

  await user.click(within(large!).getByRole('button', { name: 'Download Qwen3 4B' }));
  await waitFor(() => expect(state.channel).not.toBeNull());
  expect(backend.callsTo('download_model')[0]).toMatchObject({ url: CATALOGUE[1]!.url, sha256: CATALOGUE[1]!.sha256 });
  expect(within(large!).getByRole('button', { name: 'Download Qwen3 4B' })).toBeDisabled();
});
