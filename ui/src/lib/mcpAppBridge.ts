// The host side of the MCP Apps postMessage protocol (SEP-1865, ext-apps 2026-01-26) for one
// App frame, independent of the DOM so it can be tested: JSON-RPC 2.0 messages in, answers
// and notifications out. Every message from the frame is untrusted: shapes are checked, a
// flood is cut by a per-second budget, only a few requests run at once, and anything the host
// does not offer is refused with a JSON-RPC error. Notifications to the App (tool input,
// tool result) are held until the App says `ui/notifications/initialized`. When the host
// context changes (the theme), an App that was given that part of the context at
// `ui/initialize` is told with `ui/notifications/host-context-changed`.

/** The protocol revision this host speaks. */
export const APP_PROTOCOL_VERSION = '2026-01-26';

/** A line of an App's log, shown in its card. */
export type AppLogEntry = { level: 'info' | 'warning' | 'error' | 'debug'; text: string };

/** A tool result in MCP wire form (what `tools/call` answers and `tool-result` carries). */
export type McpToolResult = { content: unknown[]; structuredContent?: unknown; isError?: boolean };

/** What the bridge needs from the host around it. */
export type BridgeHost = {
  /** Posts one message to the App's frame. */
  post(message: object): void;
  /** Runs the App's `tools/call` on its own server; rejects with a reason when refused. */
  callTool(name: string, args: Record<string, unknown>): Promise<McpToolResult>;
  /** Opens a link after the user's confirmation; resolves to whether it was opened. */
  openLink(url: string): Promise<boolean>;
  /** Records a log line (refusals, App log messages, dropped floods). */
  log(entry: AppLogEntry): void;
  /** The App asked for a new size. */
  resize(size: { width?: number; height?: number }): void;
};

/** What the App is told when it connects, and the notifications it gets once initialized. */
export type BridgeInit = {
  hostInfo: { name: string; version: string };
  hostContext: Record<string, unknown>;
  toolInput: Record<string, unknown>;
  toolResult: McpToolResult | null;
};

export type BridgeLimits = {
  /** Messages accepted from the frame per second; the rest are dropped. */
  perSecond: number;
  /** `tools/call` and `ui/open-link` requests running at once; more are refused. */
  inFlight: number;
  /** How long teardown waits for the App's answer (ms). */
  teardownMs: number;
  now: () => number;
};

export const DEFAULT_LIMITS: BridgeLimits = { perSecond: 200, inFlight: 4, teardownMs: 500, now: () => Date.now() };

const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const INVALID_REQUEST = -32600;
const REFUSED = -32000;

type Id = string | number;
type Incoming = { id?: Id; method?: string; params?: unknown; result?: unknown; error?: unknown };

/** Requests the host does not offer to Apps (answered with "not supported"). */
const UNSUPPORTED = new Set(['ui/message', 'ui/update-model-context', 'ui/download-file', 'resources/read', 'resources/list', 'sampling/createMessage']);

export class AppBridge {
  /** `connecting` until the App's `initialized`; `closed` after teardown. */
  state: 'connecting' | 'ready' | 'closed' = 'connecting';
  /** How many messages the flood budget dropped so far. */
  dropped = 0;
  private held: object[] = [];
  private initializeSeen = false;
  private running = 0;
  private windowStart = 0;
  private windowCount = 0;
  private windowDropped = 0;
  private nextId = 1;
  private waiting = new Map<Id, (answer: Incoming) => void>();
  /** The host context the App was given at `ui/initialize` (kept up to date). */
  private given: Record<string, unknown> | null = null;

  constructor(
    private host: BridgeHost,
    private init: BridgeInit,
    private limits: BridgeLimits = DEFAULT_LIMITS,
  ) {
    this.notify('ui/notifications/tool-input', { arguments: init.toolInput });
    if (init.toolResult) this.notify('ui/notifications/tool-result', init.toolResult);
  }

  /** Sends a notification now, or holds it until the App is initialized. */
  notify(method: string, params: unknown): void {
    const message = { jsonrpc: '2.0', method, params };
    if (this.state === 'ready') this.host.post(message);
    else if (this.state === 'connecting') this.held.push(message);
  }

  /** Updates the host context (the theme, say). An App that was given these keys at
   * `ui/initialize` is told of the changed ones with `ui/notifications/host-context-changed`
   * (held until it is initialized); an App not initialized yet gets the new context in its
   * `ui/initialize` answer. Returns whether the App is told. */
  updateHostContext(changes: Record<string, unknown>): boolean {
    if (this.state === 'closed') return false;
    const context = this.init.hostContext;
    const changed = Object.entries(changes).filter(([key, value]) => JSON.stringify(context[key]) !== JSON.stringify(value));
    if (changed.length === 0) return false;
    this.init = { ...this.init, hostContext: { ...context, ...Object.fromEntries(changed) } };
    const given = this.given;
    if (!given) return false;
    const told = Object.fromEntries(changed.filter(([key]) => key in given));
    if (Object.keys(told).length === 0) return false;
    this.given = { ...given, ...told };
    this.notify('ui/notifications/host-context-changed', told);
    return true;
  }

  /** Handles one message from the frame (already checked to come from it). */
  receive(data: unknown): void {
    if (this.state === 'closed' || !this.withinBudget()) return;
    if (typeof data !== 'object' || data === null || (data as { jsonrpc?: unknown }).jsonrpc !== '2.0') {
      this.host.log({ level: 'warning', text: 'ignored a message that is not JSON-RPC 2.0' });
      return;
    }
    const m = data as Incoming;
    const hasId = typeof m.id === 'string' || typeof m.id === 'number';
    if (typeof m.method !== 'string') {
      if (hasId) this.answered(m);
      return;
    }
    if (hasId) void this.request(m.id as Id, m.method, m.params);
    else this.notification(m.method, m.params);
  }

  /** Asks the App to tear down (`ui/resource-teardown`), waits for its answer or the time
   * limit, and stops handling its messages. */
  async teardown(): Promise<void> {
    if (this.state === 'closed') return;
    const id = `host-${this.nextId++}`;
    const answered = new Promise<void>((ok) => {
      this.waiting.set(id, () => ok());
      setTimeout(ok, this.limits.teardownMs);
    });
    this.host.post({ jsonrpc: '2.0', id, method: 'ui/resource-teardown', params: {} });
    await answered;
    this.waiting.delete(id);
    this.state = 'closed';
    this.held = [];
  }

  private withinBudget(): boolean {
    const now = this.limits.now();
    if (now - this.windowStart >= 1000) {
      if (this.windowDropped > 0) {
        this.host.log({ level: 'warning', text: `flood: dropped ${this.windowDropped} messages in one second` });
      }
      this.windowStart = now;
      this.windowCount = 0;
      this.windowDropped = 0;
    }
    this.windowCount += 1;
    if (this.windowCount <= this.limits.perSecond) return true;
    this.windowDropped += 1;
    this.dropped += 1;
    return false;
  }

  private answered(m: Incoming): void {
    const resolve = this.waiting.get(m.id as Id);
    if (resolve) resolve(m);
  }

  private notification(method: string, params: unknown): void {
    switch (method) {
      case 'ui/notifications/initialized':
        if (!this.initializeSeen) {
          this.host.log({ level: 'warning', text: 'initialized before ui/initialize; ignored' });
          return;
        }
        this.state = 'ready';
        for (const message of this.held.splice(0)) this.host.post(message);
        return;
      case 'ui/notifications/size-changed':
        this.host.resize(size(params));
        return;
      case 'notifications/message':
        this.host.log(logEntry(params));
        return;
      case 'ui/notifications/request-teardown':
        this.host.log({ level: 'info', text: 'the App asked to be closed' });
        return;
      default:
        return;
    }
  }

  private async request(id: Id, method: string, params: unknown): Promise<void> {
    try {
      const result = await this.answer(method, params);
      this.reply(id, { result });
    } catch (e) {
      const { code, message } = e instanceof RpcError ? e : { code: REFUSED, message: String((e as Error)?.message ?? e) };
      if (method !== 'ping') this.host.log({ level: 'warning', text: `refused ${method}: ${message}` });
      this.reply(id, { error: { code, message } });
    }
  }

  private reply(id: Id, body: object): void {
    if (this.state !== 'closed') this.host.post({ jsonrpc: '2.0', id, ...body });
  }

  private async answer(method: string, params: unknown): Promise<unknown> {
    if (method === 'ui/initialize') return this.initialize();
    if (method === 'ping') return {};
    if (!this.initializeSeen) throw new RpcError(INVALID_REQUEST, `${method} before ui/initialize`);
    if (method === 'tools/call') return this.limited(() => this.callTool(params));
    if (method === 'ui/open-link') return this.limited(() => this.openLink(params));
    if (method === 'ui/request-display-mode') return { mode: 'inline' };
    if (UNSUPPORTED.has(method)) throw new RpcError(METHOD_NOT_FOUND, `${method} is not supported by this host`);
    throw new RpcError(METHOD_NOT_FOUND, `unknown method ${method}`);
  }

  private initialize(): object {
    this.initializeSeen = true;
    const init = this.init;
    this.given = { ...init.hostContext };
    return {
      protocolVersion: APP_PROTOCOL_VERSION,
      hostInfo: init.hostInfo,
      hostCapabilities: { openLinks: {}, serverTools: {}, logging: {} },
      hostContext: init.hostContext,
    };
  }

  private async limited<T>(run: () => Promise<T>): Promise<T> {
    if (this.running >= this.limits.inFlight) throw new RpcError(REFUSED, 'too many requests at once');
    this.running += 1;
    try {
      return await run();
    } finally {
      this.running -= 1;
    }
  }

  private async callTool(params: unknown): Promise<McpToolResult> {
    const p = (params ?? {}) as { name?: unknown; arguments?: unknown };
    if (typeof p.name !== 'string' || p.name === '') throw new RpcError(INVALID_PARAMS, 'tools/call needs a tool name');
    const args = p.arguments ?? {};
    if (typeof args !== 'object' || args === null || Array.isArray(args)) throw new RpcError(INVALID_PARAMS, 'arguments must be an object');
    return this.host.callTool(p.name, args as Record<string, unknown>);
  }

  private async openLink(params: unknown): Promise<object> {
    const url = (params as { url?: unknown } | null)?.url;
    if (typeof url !== 'string' || !isWebUrl(url)) throw new RpcError(INVALID_PARAMS, 'only http and https links can be opened');
    const opened = await this.host.openLink(url);
    return opened ? {} : { isError: true };
  }
}

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** Whether `url` is an absolute http(s) URL. */
export function isWebUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

function size(params: unknown): { width?: number; height?: number } {
  const p = (params ?? {}) as { width?: unknown; height?: unknown };
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);
  return { width: n(p.width), height: n(p.height) };
}

function logEntry(params: unknown): AppLogEntry {
  const p = (params ?? {}) as { level?: unknown; data?: unknown; logger?: unknown };
  const level = p.level === 'error' || p.level === 'critical' ? 'error' : p.level === 'warning' ? 'warning' : p.level === 'debug' ? 'debug' : 'info';
  const data = typeof p.data === 'string' ? p.data : JSON.stringify(p.data);
  const text = `${typeof p.logger === 'string' ? `[${p.logger}] ` : ''}${data ?? ''}`.slice(0, 500);
  return { level, text };
}
