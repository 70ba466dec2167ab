import { beforeEach, expect, test } from 'vitest';
import type { SupervisorEvent } from '../bindings';
import { installFakeBackend } from '../test/fakeBackend';
import { resetAppState } from '../test/reset';
import { servers } from './servers.svelte';

beforeEach(() => resetAppState());

test('a state snapshot that was asked for before a newer event does not overwrite it', async () => {
  let answer: (value: unknown) => void = () => {};
  installFakeBackend([], {
    extra: (cmd) =>
      cmd === 'server_states'
        ? new Promise((resolve) => (answer = resolve))
        : undefined,
  });
  const loading = servers.loadStates();
  // The server becomes ready while the snapshot (taken when it was starting) is on its way.
  servers.apply({ type: 'state', server: 'time', state: { type: 'ready', tools: 2 } } as unknown as SupervisorEvent);
  answer([
    { name: 'time', state: { type: 'starting' } },
    { name: 'weather', state: { type: 'starting' } },
  ]);
  await loading;
  expect(servers.states.time?.type).toBe('ready');
  expect(servers.states.weather?.type).toBe('starting');

  // With no event meanwhile, a snapshot is taken as it is.
  installFakeBackend([], {
    extra: (cmd) => (cmd === 'server_states' ? [{ name: 'time', state: { type: 'stopped' } }] : undefined),
  });
  await servers.loadStates();
  expect(servers.states.time?.type).toBe('stopped');
});
