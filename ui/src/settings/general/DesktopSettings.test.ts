import { render, screen, waitFor } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, expect, test } from 'vitest';
import { installFakeBackend } from '../../test/fakeBackend';
import { defaultDesktop, TAKEN_SHORTCUT } from '../../test/fakeDesktop';
import { resetAppState } from '../../test/reset';
import DesktopSettings from './DesktopSettings.svelte';

beforeEach(() => resetAppState());

test('a new shortcut is set and said; one another app holds is refused, naming the one kept', async () => {
  const backend = installFakeBackend();
  const user = userEvent.setup();
  render(DesktopSettings);
  const input = await screen.findByTestId('desktop-shortcut');
  expect(input).toHaveValue('Ctrl+Alt+Space');
  await user.clear(input);
  await user.type(input, 'Super+Shift+K');
  await user.click(screen.getByTestId('desktop-shortcut-save'));
  await waitFor(() => expect(backend.callsTo('set_desktop_settings')).toHaveLength(1));
  expect(backend.callsTo('set_desktop_settings')[0]).toEqual({ settings: { shortcut: 'Super+Shift+K', tray: true, closeToTray: false } });
  expect(await screen.findByText(/Press Super\+Shift\+K anywhere/)).toBeVisible();

  await user.clear(input);
  await user.type(input, TAKEN_SHORTCUT);
  await user.click(screen.getByTestId('desktop-shortcut-save'));
  const error = await screen.findByTestId('desktop-error');
  expect(error).toHaveTextContent(`${TAKEN_SHORTCUT} could not be taken`);
  expect(error).toHaveTextContent('Super+Shift+K is kept');
  expect(screen.getByText(/Press Super\+Shift\+K anywhere/)).toBeVisible();
});

test('a desktop without a tray says why and does not offer closing to the tray', async () => {
  const desktop = defaultDesktop();
  desktop.status.trayNote = 'this desktop has no tray host';
  installFakeBackend([], { desktop });
  render(DesktopSettings);
  expect(await screen.findByTestId('desktop-tray-note')).toHaveTextContent('No tray icon can show: this desktop has no tray host');
  expect(screen.getByTestId('desktop-close-to-tray')).toBeDisabled();
});

test('the tray, closing to it and starting on login are switched with what the rest of the settings were', async () => {
  const backend = installFakeBackend();
  const user = userEvent.setup();
  render(DesktopSettings);
  await user.click(await screen.findByTestId('desktop-close-to-tray'));
  await waitFor(() => expect(backend.callsTo('set_desktop_settings')).toHaveLength(1));
  expect(backend.callsTo('set_desktop_settings')[0]).toEqual({ settings: { shortcut: 'Ctrl+Alt+Space', tray: true, closeToTray: true } });
  await user.click(screen.getByTestId('desktop-start-on-login'));
  await waitFor(() => expect(backend.callsTo('set_start_on_login')).toEqual([{ on: true }]));
  expect(screen.getByTestId('desktop-start-on-login')).toBeChecked();
  await user.click(screen.getByTestId('desktop-tray'));
  await waitFor(() => expect(backend.callsTo('set_desktop_settings')).toHaveLength(2));
  expect(backend.callsTo('set_desktop_settings')[1]).toEqual({ settings: { shortcut: 'Ctrl+Alt+Space', tray: false, closeToTray: true } });
  expect(screen.getByTestId('desktop-close-to-tray')).toBeDisabled();
});
