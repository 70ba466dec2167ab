// The server manager's state: the configured servers (from `list_servers`) and the live state
// of each (from `mcp:server` events, by server name). Commands update the list in place.
import { listen, type UnlistenFn } from '@tauri-apps/api/event';
import * as api from '../api';
import type { ImportPreview, ImportReport, ServerConfig, ServerRecord, ToolCost } from '../bindings';
import { isSupervisorEvent, SERVER_STATE_EVENT, type ServerState, type SupervisorEvent } from './serverState';

class ServerStore {
  records = $state<ServerRecord[]>([]);
  states = $state<Record<string, ServerState>>({});
  /** Bumped on `tools_changed`, so tool browsers know to list again. */
  toolsVersion = $state<Record<string, number>>({});
  /** Authorize URLs of servers waiting for the user to sign in (OAuth), by server name. */
  authorization = $state<Record<string, string>>({});
  loading = $state(false);
  loaded = $state(false);
  /** How many state events each server has had (not reactive): a snapshot asked for before
   * the latest event must not overwrite what that event said. */
  private seen = new Map<string, number>();

  /** Loads the configured servers (again). */
  async load(): Promise<void> {
    this.loading = true;
    try {
      this.records = sortByName(await api.listServers());
      this.loaded = true;
    } finally {
      this.loading = false;
    }
  }

  /** Takes the current state of every supervised server (events carry the changes after). A
   * server whose state event arrived while the snapshot was on its way keeps the event's state:
   * the snapshot is older. */
  async loadStates(): Promise<void> {
    const asked = new Map(this.seen);
    const statuses = await api.serverStates();
    const fresh = statuses.filter((s) => (this.seen.get(s.name) ?? 0) === (asked.get(s.name) ?? 0));
    this.states = { ...this.states, ...Object.fromEntries(fresh.map((s) => [s.name, s.state])) };
  }

  /** Applies one supervisor event. */
  apply(event: SupervisorEvent): void {
    if (event.type === 'state') {
      this.seen.set(event.server, (this.seen.get(event.server) ?? 0) + 1);
      this.states = { ...this.states, [event.server]: event.state };
      // A sign-in is only awaited while the server is starting.
      if (event.state.type !== 'starting' && event.server in this.authorization) {
        const { [event.server]: _, ...rest } = this.authorization;
        this.authorization = rest;
      }
    } else if (event.type === 'authorization_needed') {
      this.authorization = { ...this.authorization, [event.server]: event.url };
    } else {
      this.toolsVersion = { ...this.toolsVersion, [event.server]: (this.toolsVersion[event.server] ?? 0) + 1 };
    }
  }

  stateOf(name: string): ServerState | undefined {
    return this.states[name];
  }

  async add(config: ServerConfig): Promise<ServerRecord> {
    const record = await api.addServer(config);
    this.records = sortByName([...this.records, record]);
    return record;
  }

  async update(id: string, config: ServerConfig): Promise<ServerRecord> {
    const record = await api.updateServer(id, config);
    this.records = sortByName(this.records.map((r) => (r.id === id ? record : r)));
    return record;
  }

  async setEnabled(id: string, enabled: boolean): Promise<void> {
    const record = await api.setServerEnabled(id, enabled);
    this.records = this.records.map((r) => (r.id === id ? record : r));
  }

  async remove(id: string): Promise<void> {
    await api.removeServer(id);
    this.records = this.records.filter((r) => r.id !== id);
  }

  /** What importing an `mcpServers` document would do; changes nothing. */
  previewImport(json: string, replace: boolean): Promise<ImportPreview> {
    return api.previewImportServers(json, replace);
  }

  async import(json: string, replace: boolean): Promise<ImportReport> {
    const report = await api.importServers(json, replace);
    await this.load();
    return report;
  }

  /**
   * Every server as an `mcpServers` JSON document; env and header values are blank unless
   * `withSecrets` (ask the user first: they are written in clear).
   */
  export(withSecrets = false): Promise<string> {
    return api.exportServers(withSecrets);
  }

  /** Whether a remote server has an OAuth client secret or private key in the keychain. */
  clientSecretSet(id: string): Promise<boolean> {
    return api.serverClientSecretSet(id);
  }

  /** Sets (or with `null` forgets) a remote server's OAuth client secret or PEM private key. */
  setClientSecret(id: string, secret: string | null): Promise<void> {
    return api.setServerClientSecret(id, secret);
  }

  /** Starts a server (by name or id) and resolves once it is ready; its state arrives as events. */
  start(name: string): Promise<void> {
    return api.startServer(name);
  }

  /** Stops a server; false when it was not running. */
  stop(name: string): Promise<boolean> {
    return api.stopServer(name);
  }

  restart(name: string): Promise<void> {
    return api.restartServer(name);
  }

  /** Each supervised server's tool count and the estimated tokens of their definitions. */
  toolCosts(): Promise<ToolCost[]> {
    return api.toolCosts();
  }

  reset(): void {
    this.records = [];
    this.states = {};
    this.seen.clear();
    this.toolsVersion = {};
    this.authorization = {};
    this.loading = false;
    this.loaded = false;
  }
}

function sortByName(records: ServerRecord[]): ServerRecord[] {
  return [...records].sort((a, b) => a.config.name.localeCompare(b.config.name));
}

export const servers = new ServerStore();

/** Feeds `mcp:server` events into the store; returns the function that stops listening. */
export function listenServerEvents(): Promise<UnlistenFn> {
  return listen<unknown>(SERVER_STATE_EVENT, (event) => {
    if (isSupervisorEvent(event.payload)) servers.apply(event.payload);
  });
}
