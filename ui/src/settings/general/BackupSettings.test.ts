import { render, screen, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, test } from 'vitest';
import type { BackupInfo } from '../../bindings';
import { setLang } from '../../i18n/index.svelte';
import { emptyBackups } from '../../test/fakeBackups';
import { installFakeBackend } from '../../test/fakeBackend';
import { resetAppState } from '../../test/reset';
import BackupSettings from './BackupSettings.svelte';

beforeEach(() => resetAppState());

const backup = (fields: Partial<BackupInfo>): BackupInfo => ({
  name: 'switchboard-1796540000000-scheduled.db',
  createdMs: 1796540000000,
  reason: 'scheduled',
  bytes: 3 * 1024 * 1024,
  pendingRestore: false,
  ...fields,
});

describe('Settings → Backups', () => {
  test('takes a backup now and lists it first, with why it was taken and its size', async () => {
    const older = backup({});
    const backend = installFakeBackend([], { backups: { ...emptyBackups(), backups: [older] } });
    const user = userEvent.setup();
    render(BackupSettings);
    const card = screen.getByTestId('backup-settings');
    expect(await within(card).findAllByTestId('backup-row')).toHaveLength(1);
    expect(card).toHaveTextContent('Automatic · 3.0 MB');

    await user.click(within(card).getByTestId('backup-now'));
    const rows = await within(card).findAllByTestId('backup-row');
    expect(rows).toHaveLength(2);
    expect(rows[0]).toHaveTextContent('Made by you · 256 KB');
    expect(backend.callsTo('backup_now')).toHaveLength(1);
  });

  test('a restore is confirmed first, then named as waiting for the next start, and can be taken back', async () => {
    const chosen = backup({ name: 'switchboard-1796540000000-manual.db', reason: 'manual' });
    const backend = installFakeBackend([], { backups: { ...emptyBackups(), backups: [chosen] } });
    const user = userEvent.setup();
    render(BackupSettings);
    const card = screen.getByTestId('backup-settings');
    const restore = await within(card).findByRole('button', { name: /^Restore the backup of / });
    await user.click(restore);
    const confirm = within(card).getByRole('group', { name: 'Confirm the restore' });
    expect(confirm).toHaveTextContent('kept as a backup first');
    expect(backend.callsTo('restore_backup')).toHaveLength(0);

    await user.click(within(confirm).getByRole('button', { name: 'Restore at next start' }));
    expect(backend.callsTo('restore_backup')).toEqual([{ name: chosen.name }]);
    expect(await within(card).findByTestId('backups-pending')).toHaveTextContent(`${chosen.name} will be restored the next time Switchboard starts`);
    expect(within(card).queryByRole('button', { name: /^Restore the backup of / })).toBeNull();

    await user.click(within(card).getByRole('button', { name: 'Don’t restore' }));
    expect(backend.callsTo('cancel_restore')).toHaveLength(1);
    expect(await within(card).findByRole('button', { name: /^Restore the backup of / })).toBeInTheDocument();
    expect(within(card).queryByTestId('backups-pending')).toBeNull();
  });

  test('the schedule is saved as chosen, and a keep below one is not sent', async () => {
    const backend = installFakeBackend();
    const user = userEvent.setup();
    render(BackupSettings);
    const card = screen.getByTestId('backup-settings');
    expect(await within(card).findByTestId('backups-empty')).toHaveTextContent('No backups yet.');
    await user.selectOptions(within(card).getByLabelText('Back up automatically'), 'Every week');
    expect(backend.callsTo('set_backup_schedule')).toEqual([{ everyHours: 168, keep: 7 }]);

    const keep = within(card).getByLabelText('Automatic backups kept');
    await user.clear(keep);
    await user.type(keep, '0');
    keep.blur();
    expect(backend.callsTo('set_backup_schedule')).toHaveLength(1);
    await user.clear(keep);
    await user.type(keep, '3');
    keep.blur();
    expect(backend.callsTo('set_backup_schedule')[1]).toEqual({ everyHours: 168, keep: 3 });
  });

  test('what the restore of this start did is said, in Chinese too', async () => {
    setLang('zh-CN');
    installFakeBackend([], { backups: { ...emptyBackups(), restoreFailed: 'the database file x is corrupt' } });
    render(BackupSettings);
    const card = screen.getByTestId('backup-settings');
    expect(await within(card).findByRole('alert')).toHaveTextContent('为本次启动选择的恢复没有进行，数据库保持原样：the database file x is corrupt');
    expect(within(card).getByRole('heading', { name: '备份' })).toBeInTheDocument();
  });

  test('a backup is removed from the list', async () => {
    const gone = backup({ name: 'switchboard-1796540000000-manual.db', reason: 'manual' });
    const backend = installFakeBackend([], { backups: { ...emptyBackups(), backups: [gone] } });
    const user = userEvent.setup();
    render(BackupSettings);
    const card = screen.getByTestId('backup-settings');
    await user.click(await within(card).findByRole('button', { name: /^Remove the backup of / }));
    expect(backend.callsTo('remove_backup')).toEqual([{ name: gone.name }]);
    expect(await within(card).findByTestId('backups-empty')).toBeInTheDocument();
  });

  test('a backup the engine cannot take is said in the card', async () => {
    const backend = installFakeBackend();
    backend.fail('backup_now', { kind: 'io', message: 'cannot copy the database: disk full' });
    const user = userEvent.setup();
    render(BackupSettings);
    const card = screen.getByTestId('backup-settings');
    await user.click(await within(card).findByTestId('backup-now'));
    expect(await within(card).findByRole('alert')).toHaveTextContent('cannot copy the database: disk full');
  });
});
