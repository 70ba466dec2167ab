import { render, screen, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, expect, test } from 'vitest';
import { installFakeBackend } from '../../test/fakeBackend';
import { resetAppState } from '../../test/reset';
import RootsSettings from './RootsSettings.svelte';

beforeEach(() => resetAppState());

test('folders chosen in the native picker are added as roots, without repeating a listed one', async () => {
  const backend = installFakeBackend([], {
    roots: ['/home/me/notes'],
    extra: (cmd) => (cmd === 'plugin:dialog|open' ? ['/home/me/notes', '/home/me/code'] : undefined),
  });
  const user = userEvent.setup();
  render(RootsSettings);
  const card = screen.getByTestId('roots-settings');
  await within(card).findByText('/home/me/notes');
  await user.click(within(card).getByRole('button', { name: 'Choose folders…' }));
  expect(backend.callsTo('plugin:dialog|open')[0]).toMatchObject({ options: { directory: true, multiple: true } });
  expect(backend.callsTo('set_roots')).toEqual([{ folders: ['/home/me/notes', '/home/me/code'] }]);
  expect(await within(card).findByText('/home/me/code')).toBeInTheDocument();
});

test('closing the picker changes nothing', async () => {
  const backend = installFakeBackend([], { extra: (cmd) => (cmd === 'plugin:dialog|open' ? null : undefined) });
  const user = userEvent.setup();
  render(RootsSettings);
  const card = screen.getByTestId('roots-settings');
  await within(card).findByTestId('roots-empty');
  await user.click(within(card).getByRole('button', { name: 'Choose folders…' }));
  expect(backend.callsTo('plugin:dialog|open')).toHaveLength(1);
  expect(backend.callsTo('set_roots')).toEqual([]);
});

test('a picker that fails shows why', async () => {
  const backend = installFakeBackend();
  backend.fail('plugin:dialog|open', 'dialog not allowed');
  const user = userEvent.setup();
  render(RootsSettings);
  const card = screen.getByTestId('roots-settings');
  await within(card).findByTestId('roots-empty');
  await user.click(within(card).getByRole('button', { name: 'Choose folders…' }));
  expect(await within(card).findByRole('alert')).toHaveTextContent('dialog not allowed');
});
