// The runtimes Switchboard brings for servers, for Settings → General → Runtimes and for the
// one-click offer on a server that failed for want of one.
import type { Runtime } from '../bindings';
export { installRuntime, removeRuntime, runtimesOverview, setPackageSources } from '../api';

/** What a runtime is for (the command its servers use), and roughly what it downloads. */
export type RuntimeInfo = { runtime: Runtime; label: string; forServers: string; size: string };

export const RUNTIMES: readonly RuntimeInfo[] = [
  { runtime: 'uv', label: 'uv', forServers: 'uvx', size: '18 MB' },
  { runtime: 'node', label: 'Node.js', forServers: 'npx', size: '60 MB' },
];

/** The runtime a server's failure says Switchboard can bring (the engine's hint names the
 * `switchboard runtimes install …` command), if it says so. */
export function runtimeWanted(reason: string): RuntimeInfo | null {
  const named = /switchboard runtimes install (uv|node)\b/.exec(reason)?.[1];
  return RUNTIMES.find((r) => r.runtime === named) ?? null;
}
