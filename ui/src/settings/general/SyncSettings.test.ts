import { render, screen, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, test } from 'vitest';
import type { SyncConflict, SyncSetup } from '../../bindings';
import { setLang } from '../../i18n/index.svelte';
import { installFakeBackend } from '../../test/fakeBackend';
import { noSync } from '../../test/fakeSync';
import { resetAppState } from '../../test/reset';
import SyncSettings from './SyncSettings.svelte';

beforeEach(() => resetAppState());

const conflict = (fields: Partial<SyncConflict>): SyncConflict => ({
  id: 'c1',
  kind: 'conversation',
  recordId: 'conv-1',
  label: 'Trip plans',
  other: { title: 'Holiday plans' },
  otherDevice: 'f'.repeat(32),
  deleted: false,
  at: Date.UTC(2026, 11, 6, 8, 0),
  ...fields,
});

const synced = (conflicts: SyncConflict[]) => ({
  ...noSync(),
  settings: { target: { kind: 'webdav' as const, url: 'https://dav.example.com/sb/' }, encrypted: true, everyMinutes: 15, timeoutSecs: 60 },
  lastSync: Date.UTC(2026, 11, 6, 9, 0),
  peers: [{ device: 'f'.repeat(32), name: 'desktop', applied: 4 }],
  conflicts,
});

describe('Settings → Sync', () => {
  test('sets up an encrypted WebDAV sync, sending the password and passphrase once, then shows where it syncs', async () => {
    const backend = installFakeBackend([]);
    const user = userEvent.setup();
    render(SyncSettings);
    const card = screen.getByTestId('sync-settings');
    await user.type(await within(card).findByTestId('sync-url'), 'https://dav.example.com/sb/');
    await user.type(within(card).getByTestId('sync-user'), 'alice');
    await user.type(within(card).getByTestId('sync-password'), 'pw');
    await user.click(within(card).getByTestId('sync-encrypt'));
    await user.type(within(card).getByTestId('sync-passphrase'), 'correct horse');
    await user.type(within(card).getByTestId('sync-repeat'), 'correct hors');
    await user.click(within(card).getByTestId('sync-setup'));
    expect(within(card).getByTestId('sync-form-error')).toHaveTextContent('The two passphrases differ.');
    expect(backend.callsTo('sync_setup')).toHaveLength(0);

    await user.type(within(card).getByTestId('sync-repeat'), 'e');
    await user.click(within(card).getByTestId('sync-setup'));
    const facts = await within(card).findByTestId('sync-facts');
    expect(facts).toHaveTextContent('https://dav.example.com/sb/');
    expect(facts).toHaveTextContent('End-to-end, with your passphrase');
    expect(within(card).getByTestId('sync-report')).toHaveTextContent('12 changes in, 3 out, 0 conflicts; 2 KB sent, 8 KB received');
    const [args] = backend.callsTo('sync_setup') as [{ setup: SyncSetup }];
    expect(args.setup).toMatchObject({
      target: { kind: 'webdav', url: 'https://dav.example.com/sb/', user: 'alice' },
      password: 'pw',
      passphrase: 'correct horse',
      everyMinutes: 15,
    });
  });

  test('a refused setup is said and the form stays', async () => {
    const backend = installFakeBackend([]);
    const user = userEvent.setup();
    render(SyncSettings);
    const card = screen.getByTestId('sync-settings');
    await user.type(await within(card).findByTestId('sync-url'), 'https://dav.example.com/sb/');
    await user.click(within(card).getByTestId('sync-encrypt'));
    await user.type(within(card).getByTestId('sync-passphrase'), 'wrong passphrase');
    await user.type(within(card).getByTestId('sync-repeat'), 'wrong passphrase');
    await user.click(within(card).getByTestId('sync-setup'));
    expect(await within(card).findByTestId('sync-failure')).toHaveTextContent('the passphrase does not open this sync folder');
    expect(within(card).getByTestId('sync-form')).toBeInTheDocument();
    expect(backend.callsTo('sync_setup')).toHaveLength(1);
  });

  test('lists the conflicts with what was set aside and from which computer; one is taken back, one dismissed', async () => {
    const backend = installFakeBackend([], {
      sync: synced([conflict({}), conflict({ id: 'c2', label: 'Old notes', other: {}, deleted: true, otherDevice: 'a1b2c3d4e5f60718293a4b5c6d7e8f90' })]),
    });
    const user = userEvent.setup();
    render(SyncSettings);
    const rows = await screen.findAllByTestId('sync-conflict');
    expect(rows).toHaveLength(2);
    expect(rows[0]).toHaveTextContent('Conversation “Trip plans”');
    expect(rows[0]).toHaveTextContent('Set aside from desktop: title: Holiday plans');
    expect(rows[1]).toHaveTextContent('Deleted on this computer, kept because it was edited');
    await user.click(within(rows[0]).getByRole('button', { name: 'Use the set-aside version' }));
    expect(backend.callsTo('use_sync_conflict')).toEqual([{ id: 'c1' }]);
    expect(await screen.findAllByTestId('sync-conflict')).toHaveLength(1);
    await user.click(within(screen.getByTestId('sync-conflict')).getByRole('button', { name: 'Dismiss' }));
    expect(backend.callsTo('dismiss_sync_conflict')).toEqual([{ id: 'c2' }]);
  });

  test('stopping is confirmed first and brings the form back; in Chinese too', async () => {
    setLang('zh-CN');
    const backend = installFakeBackend([], { sync: synced([]) });
    const user = userEvent.setup();
    render(SyncSettings);
    const card = screen.getByTestId('sync-settings');
    expect(await within(card).findByTestId('sync-facts')).toHaveTextContent('端到端，使用你的口令');
    await user.click(within(card).getByRole('button', { name: '停止同步…' }));
    expect(backend.callsTo('sync_off')).toHaveLength(0);
    await user.click(within(card).getByTestId('sync-off'));
    expect(await within(card).findByTestId('sync-form')).toBeInTheDocument();
    expect(backend.callsTo('sync_off')).toHaveLength(1);
  });
});
