import { render, screen, waitFor } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, expect, test } from 'vitest';
import ChatSettingsBar from './ChatSettingsBar.svelte';
import { assistant } from '../test/fakeAssistants';
import { conversation, installFakeBackend } from '../test/fakeBackend';
import { providerView } from '../test/fakeProviders';
import { resetAppState } from '../test/reset';
import { servers } from '../lib/servers.svelte';
import type { SupervisorEvent } from '../bindings';

beforeEach(() => resetAppState());

const provider = (id: string, name: string, defaultModel?: string) => ({
  provider: {
    id,
    name,
    kind: 'openai',
    baseUrl: 'http://127.0.0.1:1/v1',
    headers: {},
    settings: { defaultModel, toolModes: {}, strictTools: false },
    createdAt: 0,
    updatedAt: 0,
  },
  key: { source: null, masked: null },
});

/** A server's tool costs: one tool per entry of `tokens`. */
const cost = (server: string, ready: boolean, tokens: number[]) => ({
  server,
  ready,
  tools: tokens.length,
  tokens: tokens.reduce((a, b) => a + b, 0),
  each: tokens.map((n, i) => ({ name: `${server}_${i}`, description: '', tokens: n, readOnly: i === 0 })),
});

function setup(settings = {}) {
  const conv = conversation({ title: 'x', settings });
  const backend = installFakeBackend([conv], {
    extra: (cmd, args) => {
      switch (cmd) {
        case 'list_providers':
          return [provider('p1', 'Local', 'qwen3'), provider('p2', 'Cloud')];
        case 'tool_costs':
          return [
            cost('time', true, [80, 100]),
            cost('weather', true, [60]),
          ];
        case 'update_conversation':
          return { ...conv, ...(args.patch as object) };
        default:
          return undefined;
      }
    },
  });
  render(ChatSettingsBar, { conversation: conv });
  return { conv, backend };
}

test('the tools button sums the enabled servers and a toggle saves the conversation servers', async () => {
  const { conv, backend } = setup();
  const user = userEvent.setup();
  const button = await screen.findByTestId('tools-button');
  await waitFor(() => expect(button).toHaveTextContent('Tools: 3 (~240 tokens)'));
  await user.click(button);
  const toggles = screen.getAllByTestId('server-toggle');
  expect(screen.getByTestId('tools-panel')).toHaveTextContent('2 tools, ~180 tokens');
  await user.click(toggles[0]);
  await waitFor(() =>
    expect(backend.callsTo('update_conversation')).toEqual([
      { id: conv.id, patch: { settings: { servers: ['weather'] } } },
    ]),
  );
});

test('the model defaults to the provider default and a new model and provider are saved', async () => {
  const { conv, backend } = setup({ servers: ['weather'] });
  const user = userEvent.setup();
  const model = await screen.findByTestId('model-input');
  await waitFor(() => expect(model).toHaveValue('qwen3'));
  await waitFor(() => expect(screen.getByTestId('tools-button')).toHaveTextContent('Tools: 1 (~60 tokens)'));
  await user.clear(model);
  await user.type(model, 'llama3.2{Enter}');
  model.blur();
  await user.selectOptions(screen.getByTestId('provider-select'), 'p2');
  await waitFor(() =>
    expect(backend.callsTo('update_conversation')).toEqual([
      { id: conv.id, patch: { model: 'llama3.2' } },
      { id: conv.id, patch: { providerId: 'p2' } },
    ]),
  );
});

test('servers still starting are said on the bar, and their tools appear once they are ready', async () => {
  const conv = conversation({ title: 'x' });
  let ready = false;
  const backend = installFakeBackend([conv], {
    extra: (cmd) =>
      cmd === 'tool_costs'
        ? [cost('time', ready, ready ? [80, 100] : [])]
        : cmd === 'list_providers'
          ? [provider('p1', 'Local', 'qwen3')]
          : undefined,
  });
  servers.apply({ type: 'state', server: 'time', state: { type: 'starting' } } as SupervisorEvent);
  render(ChatSettingsBar, { conversation: conv });
  const button = await screen.findByTestId('tools-button');
  await waitFor(() => expect(button).toHaveTextContent('Tools: 0 (~0 tokens) · 1 starting…'));

  ready = true;
  servers.apply({
    type: 'state',
    server: 'time',
    state: { type: 'ready', tools: 2 },
  } as unknown as SupervisorEvent);
  await waitFor(() => expect(button).toHaveTextContent('Tools: 2 (~180 tokens)'));
  expect(button).not.toHaveTextContent('starting');
  expect(backend.callsTo('tool_costs').length).toBeGreaterThanOrEqual(2);
});

test('the chat shows the assistant it started from, and its own settings and the read-only switch are saved', async () => {
  const conv = conversation({ title: 'x', systemPrompt: 'Be brief.', settings: { assistant: 'a1', temperature: 0.3 } });
  const backend = installFakeBackend([conv], {
    assistants: [assistant({ id: 'a1', name: 'Pirate', icon: '🏴‍☠️' })],
    extra: (cmd, args) => {
      switch (cmd) {
        case 'list_providers':
          return [provider('p1', 'Local', 'qwen3')];
        case 'tool_costs':
          return [cost('fs', true, [120])];
        case 'update_conversation':
          return { ...conv, ...(args.patch as object) };
        default:
          return undefined;
      }
    },
  });
  render(ChatSettingsBar, { conversation: conv });
  const user = userEvent.setup();
  expect(await screen.findByTestId('chat-assistant')).toHaveTextContent('Pirate');

  await user.click(screen.getByTestId('chat-settings-button'));
  expect(screen.getByTestId('system-prompt')).toHaveValue('Be brief.');
  const temperature = screen.getByTestId('setting-temperature');
  await user.clear(temperature);
  await user.type(temperature, '1');
  await user.tab();
  await waitFor(() =>
    expect(backend.callsTo('update_conversation')).toEqual([
      { id: conv.id, patch: { settings: { assistant: 'a1', temperature: 1 } } },
    ]),
  );

  await user.click(screen.getByTestId('tools-button'));
  const readOnly = await screen.findByTestId('auto-allow-read-only');
  await waitFor(() => expect(backend.callsTo('auto_allow_read_only')).toHaveLength(1));
  await user.click(readOnly);
  expect(backend.callsTo('set_auto_allow_read_only')).toEqual([{ on: true }]);
  expect(readOnly).toBeChecked();
});

test('with no model named anywhere, the bar shows the model the engine chose for the provider', async () => {
  const conv = conversation({ title: 'x' });
  installFakeBackend([conv], {
    providers: [providerView({ name: 'Solo' })],
    models: {},
    extra: (cmd) => (cmd === 'tool_costs' ? [] : cmd === 'provider_default_model' ? 'only-model' : undefined),
  });
  render(ChatSettingsBar, { conversation: conv });
  await waitFor(() => expect(screen.getByTestId('model-input')).toHaveValue('only-model'));
});
