import { describe, expect, test } from 'vitest';
import { AppBridge, type AppLogEntry, type BridgeHost, type BridgeLimits, type McpToolResult } from './mcpAppBridge';
import { appOf, clampHeight, toMcpResult } from './mcpApp';

type Sent = { id?: string | number; method?: string; params?: unknown; result?: unknown; error?: { code: number; message: string } };

function setup(over: Partial<BridgeHost> = {}, limits: Partial<BridgeLimits> = {}) {
  const sent: Sent[] = [];
  const logs: AppLogEntry[] = [];
  const sizes: { width?: number; height?: number }[] = [];
  const calls: string[] = [];
  let clock = 0;
  const host: BridgeHost = {
    post: (m) => sent.push(m as Sent),
    callTool: async (name) => {
      calls.push(name);
      return { content: [{ type: 'text', text: `ran ${name}` }], isError: false };
    },
    openLink: async () => true,
    log: (e) => logs.push(e),
    resize: (s) => sizes.push(s),
    ...over,
  };
  const bridge = new AppBridge(
    host,
    {
      hostInfo: { name: 'Switchboard', version: '0' },
      hostContext: { theme: 'light' },
      toolInput: { city: 'Paris' },
      toolResult: { content: [{ type: 'text', text: '20°C' }], isError: false },
    },
    { perSecond: 50, inFlight: 2, teardownMs: 50, now: () => clock, ...limits },
  );
  const settle = () => new Promise((r) => setTimeout(r, 0));
  const tick = (ms: number) => (clock += ms);
  const connect = async () => {
    bridge.receive({ jsonrpc: '2.0', id: 1, method: 'ui/initialize', params: { protocolVersion: '2026-01-26', appInfo: { name: 'a', version: '1' }, appCapabilities: {} } });
    await settle();
    bridge.receive({ jsonrpc: '2.0', method: 'ui/notifications/initialized' });
  };
  return { bridge, sent, logs, sizes, calls, settle, tick, connect };
}

describe('AppBridge', () => {
  test('tells an initialized App of a theme change with host-context-changed, once per change', async () => {
    const { bridge, sent, connect } = setup();
    await connect();
    sent.length = 0;
    expect(bridge.updateHostContext({ theme: 'dark' })).toBe(true);
    expect(bridge.updateHostContext({ theme: 'dark' })).toBe(false);
    expect(sent).toEqual([{ jsonrpc: '2.0', method: 'ui/notifications/host-context-changed', params: { theme: 'dark' } }]);
  });

  test('an App not initialized yet gets the new theme in its ui/initialize answer, and no notification', async () => {
    const { bridge, sent, settle } = setup();
    expect(bridge.updateHostContext({ theme: 'dark' })).toBe(false);
    bridge.receive({ jsonrpc: '2.0', id: 1, method: 'ui/initialize', params: {} });
    await settle();
    bridge.receive({ jsonrpc: '2.0', method: 'ui/notifications/initialized' });
    expect((sent[0].result as { hostContext: unknown }).hostContext).toEqual({ theme: 'dark' });
    expect(sent.some((m) => m.method === 'ui/notifications/host-context-changed')).toBe(false);
  });

  test('a change between ui/initialize and initialized is held until the App is initialized', async () => {
    const { bridge, sent, settle } = setup();
    bridge.receive({ jsonrpc: '2.0', id: 1, method: 'ui/initialize', params: {} });
    await settle();
    expect(bridge.updateHostContext({ theme: 'dark' })).toBe(true);
    expect(sent.some((m) => m.method === 'ui/notifications/host-context-changed')).toBe(false);
    bridge.receive({ jsonrpc: '2.0', method: 'ui/notifications/initialized' });
    expect(sent.at(-1)).toEqual({ jsonrpc: '2.0', method: 'ui/notifications/host-context-changed', params: { theme: 'dark' } });
  });

  test('a key the App was not given, and a closed App, are not told', async () => {
    const { bridge, sent, connect } = setup();
    await connect();
    sent.length = 0;
    expect(bridge.updateHostContext({ locale: 'fr-FR' })).toBe(false);
    await bridge.teardown();
    sent.length = 0;
    expect(bridge.updateHostContext({ theme: 'dark' })).toBe(false);
    expect(sent).toEqual([]);
  });

  test('answers ui/initialize, and holds tool input and result until the App is initialized', async () => {
    const { bridge, sent, settle } = setup();
    expect(sent).toEqual([]);
    bridge.receive({ jsonrpc: '2.0', id: 1, method: 'ui/initialize', params: {} });
    await settle();
    expect(sent).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        result: {
          protocolVersion: '2026-01-26',
          hostInfo: { name: 'Switchboard', version: '0' },
          hostCapabilities: { openLinks: {}, serverTools: {}, logging: {} },
          hostContext: { theme: 'light' },
        },
      },
    ]);
    bridge.receive({ jsonrpc: '2.0', method: 'ui/notifications/initialized' });
    expect(bridge.state).toBe('ready');
    expect(sent.slice(1)).toEqual([
      { jsonrpc: '2.0', method: 'ui/notifications/tool-input', params: { arguments: { city: 'Paris' } } },
      { jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: { content: [{ type: 'text', text: '20°C' }], isError: false } },
    ]);
  });

  test('an initialized notification before ui/initialize releases nothing', () => {
    const { bridge, sent, logs } = setup();
    bridge.receive({ jsonrpc: '2.0', method: 'ui/notifications/initialized' });
    expect(bridge.state).toBe('connecting');
    expect(sent).toEqual([]);
    expect(logs[0].text).toContain('before ui/initialize');
  });

  test('proxies tools/call to the host and answers with its result', async () => {
    const { bridge, sent, calls, settle, connect } = setup();
    await connect();
    bridge.receive({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'get-time', arguments: {} } });
    await settle();
    expect(calls).toEqual(['get-time']);
    expect(sent.at(-1)).toEqual({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'ran get-time' }], isError: false } });
  });

  test('a refused tools/call becomes a JSON-RPC error and a log line', async () => {
    const callTool = async (): Promise<McpToolResult> => {
      throw new Error('the tool `secret` of `s` is not callable from Apps');
    };
    const { bridge, sent, logs, settle, connect } = setup({ callTool });
    await connect();
    bridge.receive({ jsonrpc: '2.0', id: 'x', method: 'tools/call', params: { name: 'secret' } });
    await settle();
    expect(sent.at(-1)).toEqual({ jsonrpc: '2.0', id: 'x', error: { code: -32000, message: 'the tool `secret` of `s` is not callable from Apps' } });
    expect(logs.at(-1)?.text).toContain('refused tools/call');
  });

  test('requests before ui/initialize, bad arguments and unsupported methods are refused', async () => {
    const { bridge, sent, calls, settle } = setup();
    bridge.receive({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } });
    await settle();
    expect(sent.at(-1)?.error?.code).toBe(-32600);
    bridge.receive({ jsonrpc: '2.0', id: 2, method: 'ui/initialize', params: {} });
    bridge.receive({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'x', arguments: [1] } });
    bridge.receive({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: {} });
    bridge.receive({ jsonrpc: '2.0', id: 5, method: 'ui/message', params: {} });
    bridge.receive({ jsonrpc: '2.0', id: 6, method: 'no/such' });
    await settle();
    const codes = Object.fromEntries(sent.filter((m) => m.error).map((m) => [m.id, m.error?.code]));
    expect(codes).toEqual({ 1: -32600, 3: -32602, 4: -32602, 5: -32601, 6: -32601 });
    expect(calls).toEqual([]);
  });

  test('opens only http(s) links, through the host (which asks the user)', async () => {
    const opened: string[] = [];
    const { bridge, sent, settle, connect } = setup({ openLink: async (u) => (opened.push(u), u.includes('ok')) }, { inFlight: 4 });
    await connect();
    bridge.receive({ jsonrpc: '2.0', id: 11, method: 'ui/open-link', params: { url: 'javascript:alert(1)' } });
    bridge.receive({ jsonrpc: '2.0', id: 12, method: 'ui/open-link', params: { url: 'https://example.com/ok' } });
    bridge.receive({ jsonrpc: '2.0', id: 13, method: 'ui/open-link', params: { url: 'https://example.com/no' } });
    await settle();
    expect(opened).toEqual(['https://example.com/ok', 'https://example.com/no']);
    expect(sent.find((m) => m.id === 11)?.error?.code).toBe(-32602);
    expect(sent.find((m) => m.id === 12)?.result).toEqual({});
    expect(sent.find((m) => m.id === 13)?.result).toEqual({ isError: true });
  });

  test('size changes reach the host; App log messages are recorded', async () => {
    const { bridge, sizes, logs, connect } = setup();
    await connect();
    bridge.receive({ jsonrpc: '2.0', method: 'ui/notifications/size-changed', params: { width: 300, height: 420 } });
    bridge.receive({ jsonrpc: '2.0', method: 'ui/notifications/size-changed', params: { height: 'tall' } });
    bridge.receive({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'warning', logger: 'hostile', data: { attack: 'x' } } });
    expect(sizes).toEqual([{ width: 300, height: 420 }, { width: undefined, height: undefined }]);
    expect(logs.at(-1)).toEqual({ level: 'warning', text: '[hostile] {"attack":"x"}' });
  });

  test('a flood is cut to the per-second budget and logged, and the App is answered again later', async () => {
    const { bridge, sent, logs, settle, tick, connect } = setup();
    await connect();
    const before = sent.length;
    for (let i = 0; i < 10_000; i++) bridge.receive({ jsonrpc: '2.0', id: `p${i}`, method: 'ping' });
    await settle();
    expect(sent.length - before).toBeLessThanOrEqual(50);
    expect(bridge.dropped).toBeGreaterThanOrEqual(9_950);
    tick(1000);
    bridge.receive({ jsonrpc: '2.0', id: 'after', method: 'ping' });
    await settle();
    expect(sent.at(-1)).toEqual({ jsonrpc: '2.0', id: 'after', result: {} });
    expect(logs.some((l) => /flood: dropped \d+ messages/.test(l.text))).toBe(true);
  });

  test('only a few tool calls run at once; the rest are refused', async () => {
    const gates: (() => void)[] = [];
    const callTool = () => new Promise<McpToolResult>((ok) => gates.push(() => ok({ content: [] })));
    const { bridge, sent, settle, connect } = setup({ callTool });
    await connect();
    for (let i = 0; i < 4; i++) bridge.receive({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 't' } });
    await settle();
    expect(gates.length).toBe(2);
    expect(sent.filter((m) => m.error?.message === 'too many requests at once').map((m) => m.id)).toEqual([2, 3]);
    gates.forEach((g) => g());
  });

  test('teardown asks the App, waits for its answer, then ignores it', async () => {
    const { bridge, sent, connect } = setup();
    await connect();
    const done = bridge.teardown();
    const request = sent.at(-1)!;
    expect(request.method).toBe('ui/resource-teardown');
    bridge.receive({ jsonrpc: '2.0', id: request.id, result: {} });
    await done;
    expect(bridge.state).toBe('closed');
    const count = sent.length;
    bridge.receive({ jsonrpc: '2.0', id: 9, method: 'ping' });
    bridge.notify('ui/notifications/tool-result', {});
    expect(sent.length).toBe(count);
  });

  test('teardown does not hang when the App never answers', async () => {
    const { bridge, connect } = setup();
    await connect();
    await bridge.teardown();
    expect(bridge.state).toBe('closed');
  });

  test('garbage is ignored with a log line', () => {
    const { bridge, sent, logs } = setup();
    for (const junk of [null, 'text', 42, { method: 'x' }, { jsonrpc: '1.0', id: 1, method: 'ping' }]) bridge.receive(junk);
    expect(sent).toEqual([]);
    expect(logs.length).toBe(5);
  });
});

describe('mcpApp helpers', () => {
  test('appOf accepts only a well-formed stored App', () => {
    const app = { server: 's', tool: 't', resourceUri: 'ui://a', html: '<p>', csp: {}, prefersBorder: null };
    expect(appOf({ content: [], app })).toEqual(app);
    expect(appOf({ content: [] })).toBeNull();
    expect(appOf({ app: { ...app, html: 5 } })).toBeNull();
    expect(appOf(null)).toBeNull();
  });

  test('toMcpResult turns our result parts into MCP content blocks', () => {
    expect(
      toMcpResult({
        content: [
          { type: 'text', text: 'hi' },
          { type: 'image', mime: 'image/png', data: 'AAAA' },
          { type: 'resource', uri: 'x://y', mime: 'text/plain', body: { kind: 'text', value: 'v' } },
        ],
        structured: { a: 1 },
        is_error: false,
      }),
    ).toEqual({
      content: [
        { type: 'text', text: 'hi' },
        { type: 'image', mimeType: 'image/png', data: 'AAAA' },
        { type: 'resource', resource: { uri: 'x://y', mimeType: 'text/plain', text: 'v' } },
      ],
      structuredContent: { a: 1 },
      isError: false,
    });
  });

  test('a requested frame height is clamped', () => {
    expect(clampHeight(undefined, 160)).toBe(160);
    expect(clampHeight(10, 160)).toBe(48);
    expect(clampHeight(99_999, 160)).toBe(1600);
    expect(clampHeight(300.2, 160)).toBe(301);
  });
});
