import { render, screen, waitFor } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, expect, test } from 'vitest';
import { installFakeBackend } from '../../test/fakeBackend';
import { defaultDesktop } from '../../test/fakeDesktop';
import { resetAppState } from '../../test/reset';
import UpdateSettings from './UpdateSettings.svelte';

beforeEach(() => resetAppState());

const NOTES = 'Faster start-up.\n<img src=x onerror=alert(1)>';

function withUpdate(change: (desktop: ReturnType<typeof defaultDesktop>) => void) {
  const desktop = defaultDesktop();
  desktop.update.check = { type: 'available', update: { version: '0.2.0', notes: NOTES, date: '2026-12-01T10:00:00Z' } };
  change(desktop);
  return installFakeBackend([], { desktop });
}

test('a newer version shows its notes as text, installs with progress and offers a restart', async () => {
  const backend = withUpdate((d) => {
    d.update.steps = [
      { type: 'downloading', received: 1024, total: 4096 },
      { type: 'downloading', received: 4096, total: 4096 },
      { type: 'installing' },
      { type: 'installed', version: '0.2.0' },
    ];
  });
  const user = userEvent.setup();
  render(UpdateSettings);
  await user.click(await screen.findByTestId('updates-check'));
  expect(await screen.findByText('Switchboard 0.2.0 is available.')).toBeVisible();
  const notes = screen.getByTestId('updates-notes');
  expect(notes.textContent).toBe(NOTES);
  expect(notes.querySelector('img')).toBeNull();
  await user.click(screen.getByTestId('updates-install'));
  expect(await screen.findByTestId('updates-installed')).toHaveTextContent('Switchboard 0.2.0 is installed: restart to use it.');
  await user.click(screen.getByTestId('updates-restart'));
  await waitFor(() => expect(backend.callsTo('restart_app')).toHaveLength(1));
});

test('a refused update says why, keeps the offer and offers no restart', async () => {
  withUpdate((d) => {
    d.update.install = { kind: 'provider_unavailable', message: "the download's signature does not match Switchboard's release key (…); it was not installed and this version is unchanged" };
  });
  const user = userEvent.setup();
  render(UpdateSettings);
  await user.click(await screen.findByTestId('updates-check'));
  await user.click(await screen.findByTestId('updates-install'));
  expect(await screen.findByTestId('updates-error')).toHaveTextContent('signature does not match');
  expect(screen.queryByTestId('updates-restart')).toBeNull();
  expect(screen.getByTestId('updates-install')).toBeEnabled();
});

test('up to date says which version the server offered, and automatic checks can be turned off', async () => {
  const desktop = defaultDesktop();
  desktop.update.check = { type: 'upToDate', current: '0.1.0', offered: '0.0.9' };
  const backend = installFakeBackend([], { desktop });
  const user = userEvent.setup();
  render(UpdateSettings);
  await user.click(await screen.findByTestId('updates-check'));
  expect(await screen.findByTestId('updates-none')).toHaveTextContent('Switchboard 0.1.0 is the newest version (the update server offers 0.0.9).');
  await user.click(screen.getByTestId('updates-automatic'));
  await waitFor(() => expect(backend.callsTo('set_update_settings')).toEqual([{ settings: { automatic: false } }]));
  expect(screen.getByTestId('updates-automatic')).not.toBeChecked();
});
