// What a server's row says of it: the status light and one line of state, from its live state
// (`mcp:server` events) and its configuration. A server whose switch is on never reads a bare
// "Stopped": the engine starts every enabled server that starts on its own when the app starts
// and as soon as it is saved or switched on, so the line says what is happening (starting,
// waiting for a sign-in, failed, restarting) or why it is not running (stopped by hand, not
// one that starts on its own).
import type { ServerConfig } from '../../bindings';
import type { MessageKey } from '../../i18n/index.svelte';
import type { Light, ServerState } from '../../lib/serverState';

/** A row's light and its line of state (a message key and its params). */
export type ServerStatus = { light: Light; key: MessageKey; params?: Record<string, string | number> };

/**
 * The status of a server configured as `config` whose live state is `live` (`undefined`: the
 * engine has not reported one yet); `signingIn` when it waits for the user to sign in (OAuth).
 */
export function statusOf(live: ServerState | undefined, config: Pick<ServerConfig, 'enabled' | 'autoStart'>, signingIn = false): ServerStatus {
  if (!config.enabled) return { light: 'disabled', key: 'servers.state.disabled' };
  switch (live?.type) {
    case 'ready':
      return { light: 'ready', key: 'servers.state.ready', params: { tools: live.tools } };
    case 'starting':
      return { light: 'starting', key: signingIn ? 'servers.state.signingIn' : 'servers.state.starting' };
    case 'restarting':
      return { light: 'starting', key: 'servers.state.restarting', params: { attempt: live.attempt, seconds: Math.ceil(live.in_ms / 1000) } };
    case 'failed':
      return { light: 'failed', key: 'servers.state.failed' };
    case 'stopped':
      return { light: 'stopped', key: 'servers.state.stoppedByHand' };
    case undefined:
      // Not reported yet: one that starts on its own is being started (at launch, or just saved).
      return config.autoStart ? { light: 'starting', key: 'servers.state.starting' } : { light: 'stopped', key: 'servers.state.notAutoStarted' };
  }
}
