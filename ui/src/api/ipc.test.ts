import { mockIPC } from '@tauri-apps/api/mocks';
import { describe, expect, test } from 'vitest';
import { call, toIpcError } from './ipc';

describe('toIpcError', () => {
  test('keeps an IpcError as it is', () => {
    expect(toIpcError({ kind: 'not_found', message: 'no such conversation' })).toEqual({
      kind: 'not_found',
      message: 'no such conversation',
    });
  });

  test('turns a non-object rejection into an internal error with its text', () => {
    expect(toIpcError('boom')).toEqual({ kind: 'internal', message: 'boom' });
    expect(toIpcError(42)).toEqual({ kind: 'internal', message: '42' });
    expect(toIpcError(undefined)).toEqual({ kind: 'internal', message: 'undefined' });
  });

  test('turns an Error or an object with an unknown kind into an internal error with its message', () => {
    expect(toIpcError(new TypeError('no IPC'))).toEqual({ kind: 'internal', message: 'no IPC' });
    expect(toIpcError({ kind: 'weird', message: 'strange' })).toEqual({ kind: 'internal', message: 'strange' });
  });
});

describe('call', () => {
  test('rejects with a normalized IpcError', async () => {
    mockIPC(() => {
      throw 'backend exploded';
    });
    await expect(call('app_info')).rejects.toEqual({ kind: 'internal', message: 'backend exploded' });

    mockIPC(() => Promise.reject({ kind: 'corrupt_database', message: 'bad page' }));
    await expect(call('list_conversations', { page: { limit: 1 } })).rejects.toEqual({
      kind: 'corrupt_database',
      message: 'bad page',
    });
  });
});
