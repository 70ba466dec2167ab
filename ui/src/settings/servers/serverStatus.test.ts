import { describe, expect, test } from 'vitest';
import { t } from '../../i18n/index.svelte';
import type { ServerState } from '../../lib/serverState';
import { statusOf } from './serverStatus';

const on = { enabled: true, autoStart: true };
const text = (live: ServerState | undefined, config = on, signingIn = false) => {
  const status = statusOf(live, config, signingIn);
  return `${status.light}: ${t(status.key, status.params as never)}`;
};
const ready = { type: 'ready', tools: 2, info: { name: 'mcp-time', title: null, version: '1', protocol_version: '2025-11-25', era: 'handshake', instructions: null } } as ServerState;

describe('a server’s line of state', () => {
  test('a server switched on never reads a bare “Stopped”', () => {
    const cases: [ServerState | undefined, typeof on][] = [
      [undefined, on],
      [undefined, { enabled: true, autoStart: false }],
      [{ type: 'stopped' }, on],
      [{ type: 'stopped' }, { enabled: true, autoStart: false }],
      [{ type: 'starting' }, on],
      [{ type: 'failed', reason: 'x' }, on],
      [{ type: 'restarting', attempt: 1, in_ms: 500 }, on],
      [ready, on],
    ];
    for (const [live, config] of cases) {
      const line = t(statusOf(live, config).key, statusOf(live, config).params as never);
      expect(line, JSON.stringify(live)).not.toMatch(/^Stopped$/);
    }
  });

  test('says what is happening or why it is not running', () => {
    expect(text(undefined)).toBe('starting: Starting…');
    expect(text({ type: 'starting' })).toBe('starting: Starting…');
    expect(text({ type: 'starting' }, on, true)).toBe('starting: Waiting for you to sign in');
    expect(text(ready)).toBe('ready: Ready · 2 tools');
    expect(text({ type: 'failed', reason: 'spawn failed' })).toBe('failed: Failed');
    expect(text({ type: 'restarting', attempt: 2, in_ms: 1500 })).toBe('starting: Restarting (attempt 2) in 2 s');
    expect(text({ type: 'stopped' })).toBe('stopped: Stopped · start it again from Details');
    expect(text(undefined, { enabled: true, autoStart: false })).toBe(
      'stopped: Not started · it does not start on its own; start it from Details',
    );
  });

  test('a server switched off reads Disabled whatever it was doing', () => {
    for (const live of [undefined, ready, { type: 'stopped' } as ServerState]) {
      expect(text(live, { enabled: false, autoStart: true })).toBe('disabled: Disabled');
    }
  });
});
