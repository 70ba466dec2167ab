import { render, screen } from '@testing-library/svelte';
import { beforeEach, expect, test } from 'vitest';
import type { CatalogueModel } from '../../bindings';
import { installFakeBackend } from '../../test/fakeBackend';
import { CATALOGUE } from '../../test/fakeModels';
import { resetAppState } from '../../test/reset';
import ModelsSettings from './ModelsSettings.svelte';

beforeEach(() => resetAppState());

function catalogue(measured: boolean): CatalogueModel[] {
  const [small, large] = CATALOGUE;
  return [
    { ...small!, expectedSpeed: { tokensPerSecond: 24.36, measured } },
    { ...large!, expectedSpeed: { tokensPerSecond: 4.8, measured } },
  ];
}

function show(measured: boolean) {
  installFakeBackend([], { extra: (cmd) => (cmd === 'model_catalogue' ? catalogue(measured) : undefined) });
  render(ModelsSettings);
}

test('each recommended model says the speed to expect here, measured', async () => {
  show(true);
  const speeds = await screen.findAllByTestId('catalogue-speed');
  expect(speeds.map((s) => s.textContent)).toEqual(['about 24 tokens/s here', 'about 4.8 tokens/s here']);
});

test('before any measurement the speed says it is an estimate', async () => {
  show(false);
  const speeds = await screen.findAllByTestId('catalogue-speed');
  expect(speeds[0]).toHaveTextContent('about 24 tokens/s here (estimated from the CPU)');
});
