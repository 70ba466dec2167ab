// The hand-written wrappers over the generated commands: what they add (channels, a raw body,
// left-out optional arguments, defaults, refusals) reaches the IPC as the Rust commands read it.
// That every key and type matches the Rust side is checked by `npm run check` against the
// generated `commands.ts` (see tests/ipc-contract).
import { Channel } from '@tauri-apps/api/core';
import { mockIPC } from '@tauri-apps/api/mocks';
import { describe, expect, test, vi } from 'vitest';
import * as api from '.';

/** Records every invoke (command, arguments) and answers `reply(command)`. */
function recordCalls(reply: (cmd: string) => unknown = () => null): [string, unknown][] {
  const calls: [string, unknown][] = [];
  mockIPC((cmd, args) => {
    calls.push([cmd, args]);
    return reply(cmd);
  });
  return calls;
}

describe('the command wrappers', () => {
  test('pass their arguments under the names the Rust commands take', async () => {
    const calls = recordCalls((cmd) => (cmd === 'delete_conversation' ? null : { ok: cmd }));

    await api.appInfo();
    await api.listConversations({ limit: 50, cursor: 'x' });
    await api.listConversations({ limit: 5 }, { project: 'p1' });
    await api.createConversation();
    await api.renameConversation('id1', 'New title');
    await api.setConversationPinned('id1', true);
    await expect(api.deleteConversation('id1')).resolves.toBeUndefined();

    expect(calls).toEqual([
      ['app_info', {}],
      ['list_conversations', { page: { limit: 50, cursor: 'x' }, scope: 'unfiled' }],
      ['list_conversations', { page: { limit: 5 }, scope: { project: 'p1' } }],
      ['create_conversation', { input: {} }],
      ['rename_conversation', { id: 'id1', title: 'New title' }],
      ['set_conversation_pinned', { id: 'id1', pinned: true }],
      ['delete_conversation', { id: 'id1' }],
    ]);
  });

  test('the project wrappers use the Rust argument names', async () => {
    const calls = recordCalls();
    const draft = { name: 'Thesis', icon: '🎓', instructions: 'Cite.' };
    await api.listProjects();
    await api.createProject(draft);
    await api.updateProject('p1', draft);
    await api.deleteProject('p1', 'keep');
    await api.moveConversations(['c1', 'c2'], 'p1');
    await api.moveConversations(['c1'], null);
    await api.newChat(null, 'p1');
    expect(calls).toEqual([
      ['list_projects', {}],
      ['create_project', { draft }],
      ['update_project', { id: 'p1', draft }],
      ['delete_project', { id: 'p1', conversations: 'keep' }],
      ['move_conversations', { ids: ['c1', 'c2'], project: 'p1' }],
      ['move_conversations', { ids: ['c1'], project: null }],
      ['new_chat', { assistant: null, project: 'p1' }],
    ]);
  });

  test('the MCP server, interaction, roots and sampling wrappers use the Rust argument names', async () => {
    const calls = recordCalls();

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

  test('a turn streams on a channel, and empty attachments and files are left out', async () => {
    const calls = recordCalls();
    const onEvents = vi.fn();

    await api.sendMessage('c1', 'hello', onEvents);
    await api.sendMessage('c1', 'with a file', onEvents, [], [{ type: 'text', text: 'notes' }]);
    await api.regenerate('c1', onEvents);
    await api.editAndResend('m1', 'again', onEvents);

    const [send, sendFile, regenerate, edit] = calls.map(([cmd, args]) => [cmd, args as Record<string, unknown>] as const);
    expect(send![0]).toBe('send_message');
    expect(Object.keys(send![1]).sort()).toEqual(['conversationId', 'onEvent', 'text']);
    expect(send![1].onEvent).toBeInstanceOf(Channel);
    expect(sendFile![1].files).toEqual([{ type: 'text', text: 'notes' }]);
    expect(sendFile![1]).not.toHaveProperty('attachments');
    expect(regenerate).toEqual(['regenerate', { conversationId: 'c1', onEvent: expect.any(Channel) }]);
    expect(edit).toEqual(['edit_and_resend', { messageId: 'm1', text: 'again', onEvent: expect.any(Channel) }]);
  });

  test('progress arrives on a channel for an export and a model download', async () => {
    const calls = recordCalls();

    const request = { format: 'json', scope: { kind: 'all' }, out: '/tmp/x', noToolResults: false, noReasoning: false } as const;
    await api.exportConversations(request, vi.fn());
    await api.downloadModel('https://example.org/m.gguf', null, vi.fn());

    expect(calls[0]).toEqual(['export_conversations', { request, onProgress: expect.any(Channel) }]);
    expect(calls[1]).toEqual(['download_model', { url: 'https://example.org/m.gguf', sha256: null, onProgress: expect.any(Channel) }]);
  });

  test('pasted bytes go as the raw body, their name in the x-file-name header', async () => {
    mockIPC(() => ({ type: 'file', name: 'a b.txt' }));
    const internals = (window as unknown as { __TAURI_INTERNALS__: { invoke: (...args: unknown[]) => Promise<unknown> } })
      .__TAURI_INTERNALS__;
    const invoke = vi.spyOn(internals, 'invoke');
    const bytes = new Uint8Array([1, 2, 3]);

    await api.attachBytes('a b.txt', bytes);

    expect(invoke).toHaveBeenCalledWith('attach_bytes', bytes, { headers: { 'x-file-name': 'a%20b.txt' } });
    invoke.mockRestore();
  });

  test('defaults and optional arguments are sent as the commands expect', async () => {
    const calls = recordCalls();

    await api.exportServers();
    const csp = { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] };
    await api.openAppView('<p>app</p>', csp);
    await api.conversationMessages('c1');
    await api.conversationMessages('c1', { before: 'm9', limit: 20 });

    expect(calls).toEqual([
      ['export_servers', { withSecrets: false }],
      ['open_app_view', { html: '<p>app</p>', csp, server: null }],
      ['conversation_messages', { conversationId: 'c1' }],
      ['conversation_messages', { conversationId: 'c1', before: 'm9', limit: 20 }],
    ]);
  });

  test('a link that is not http(s) or mailto is refused before it reaches the engine', async () => {
    const calls = recordCalls();

    await expect(api.openExternal('file:///etc/passwd')).rejects.toEqual({
      kind: 'invalid_input',
      message: 'not an http(s) or mailto link: file:///etc/passwd',
    });
    await api.openExternal('https://example.org');

    expect(calls).toEqual([['open_external', { url: 'https://example.org' }]]);
  });

  test('reject with a normalized IpcError', async () => {
    mockIPC(() => {
      throw 'backend exploded';
    });
    await expect(api.appInfo()).rejects.toEqual({ kind: 'internal', message: 'backend exploded' });
  });
});
