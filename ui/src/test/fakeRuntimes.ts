// The runtimes side of the fake backend: what is installed and the index, in memory.
import type { InstalledRuntime, IpcError, RuntimesOverview } from '../bindings';
import { UNHANDLED } from './fakeServers';

export function noRuntimes(): RuntimesOverview {
  return { installed: [], index: 'https://pypi.org', npmRegistry: null, proxy: null, folder: '/home/test/.local/share/switchboard/runtimes' };
}

const VERSIONS = { uv: '0.13.9', node: '24.19.0' } as const;

export function runtimeCommand(state: RuntimesOverview, cmd: string, args: Record<string, unknown>): unknown {
  const name = args.name as 'uv' | 'node';
  switch (cmd) {
    case 'runtimes_overview':
      return structuredClone(state);
    case 'install_runtime': {
      if (!(name in VERSIONS)) throw { kind: 'invalid_input', message: `${JSON.stringify(name)} is not a runtime Switchboard brings` } satisfies IpcError;
      const installed: InstalledRuntime = {
        runtime: name,
        version: VERSIONS[name],
        source: `${state.index}/files/${name}.whl`,
        sha256: 'ab'.repeat(32),
        bytes: 18_000_000,
        bin: `${state.folder}/${name}/bin`,
      };
      state.installed = [...state.installed.filter((r) => r.runtime !== name), installed];
      return installed;
    }
    case 'remove_runtime':
      state.installed = state.installed.filter((r) => r.runtime !== name);
      return null;
    case 'set_package_sources':
      state.index = (args.index as string | null) ?? 'https://pypi.org';
      state.npmRegistry = (args.npmRegistry as string | null) ?? null;
      state.proxy = (args.proxy as string | null) ?? null;
      return structuredClone(state);
    default:
      return UNHANDLED;
  }
}
