import { mockIPC } from '@tauri-apps/api/mocks';
import { describe, expect, test } from 'vitest';
import * as api from './api';
import { toIpcError } from './api';

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

describe('the command wrappers', () => {
  test('pass their arguments under the names the Rust commands take', async () => {
    const calls: [string, unknown][] = [];
    mockIPC((cmd, args) => {
      calls.push([cmd, args]);
      return cmd === 'delete_conversation' ? null : { ok: cmd };
    });

    await api.appInfo();
    await api.listConversations({ limit: 50, cursor: 'x' });
    await api.createConversation({});
    await api.renameConversation('id1', 'New title');
    await api.setConversationPinned('id1', true);
    await expect(api.deleteConversation('id1')).resolves.toBeUndefined();

    expect(calls).toEqual([
      ['app_info', {}],
      ['list_conversations', { page: { limit: 50, cursor: 'x' } }],
      ['create_conversation', { input: {} }],
      ['rename_conversation', { id: 'id1', title: 'New title' }],
      ['set_conversation_pinned', { id: 'id1', pinned: true }],
      ['delete_conversation', { id: 'id1' }],
    ]);
  });

  test('the MCP server, interaction, roots and sampling wrappers use the Rust argument names', async () => {
    const calls: [string, unknown][] = [];
    mockIPC((cmd, args) => {
      calls.push([cmd, args]);
      return null;
    });

    await api.startServer('everything');
    await api.stopServer('everything');
    await api.restartServer('everything');
    await api.serverStates();
    await api.serverLogs('everything');
    await api.serverTools('everything');
    await api.serverResources('everything');
    await api.serverPrompts('everything');
    await api.callTool('everything', 'echo', { message: 'hi' });
    await api.answerInteraction('i1', { type: 'accept', content: { name: 'Ada' } });
    await api.listRoots();
    await api.setRoots(['/home/me']);
    await api.samplingModel();
    await api.setSamplingModel({ provider: 'p1', model: 'qwen3:8b' });
    await api.setSamplingModel(null);
    await api.searchMessages('rain', { limit: 30 });

    expect(calls).toEqual([
      ['start_server', { name: 'everything' }],
      ['stop_server', { name: 'everything' }],
      ['restart_server', { name: 'everything' }],
      ['server_states', {}],
      ['server_logs', { name: 'everything' }],
      ['server_tools', { name: 'everything' }],
      ['server_resources', { name: 'everything' }],
      ['server_prompts', { name: 'everything' }],
      ['call_tool', { server: 'everything', tool: 'echo', args: { message: 'hi' } }],
      ['answer_interaction', { id: 'i1', answer: { type: 'accept', content: { name: 'Ada' } } }],
      ['list_roots', {}],
      ['set_roots', { folders: ['/home/me'] }],
      ['sampling_model', {}],
      ['set_sampling_model', { choice: { provider: 'p1', model: 'qwen3:8b' } }],
      ['set_sampling_model', { choice: null }],
      ['search_messages', { query: 'rain', page: { limit: 30 } }],
    ]);
  });

  test('reject with a normalized IpcError', async () => {
    mockIPC(() => {
      throw 'backend exploded';
    });
    await expect(api.appInfo()).rejects.toEqual({ kind: 'internal', message: 'backend exploded' });

    mockIPC(() => Promise.reject({ kind: 'corrupt_database', message: 'bad page' }));
    await expect(api.listConversations({ limit: 1 })).rejects.toEqual({
      kind: 'corrupt_database',
      message: 'bad page',
    });
  });
});
