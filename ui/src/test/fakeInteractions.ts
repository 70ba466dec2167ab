// The client-capability commands of the fake backend: the roots (absolute folders only, as the
// engine demands) and the model that answers sampling requests.
import type { IpcError, RootInfo, SamplingModel } from '../bindings';
import { UNHANDLED } from './fakeServers';

export type CapabilityFake = { roots: string[]; sampling: SamplingModel | null };

function rootOf(path: string): RootInfo {
  const name = path.split('/').filter(Boolean).pop() ?? path;
  return { path, uri: `file://${encodeURI(path)}`, name };
}

/** Handles a roots or sampling-model command, or returns UNHANDLED. */
export function capabilityCommand(fake: CapabilityFake, cmd: string, args: Record<string, unknown>): unknown {
  switch (cmd) {
    case 'list_roots':
      return fake.roots.map(rootOf);
    case 'set_roots': {
      const folders = args.folders as string[];
      const bad = folders.find((f) => !f.startsWith('/'));
      if (bad !== undefined) throw { kind: 'invalid_input', message: `root "${bad}" is not an absolute path` } satisfies IpcError;
      fake.roots = [...new Set(folders)];
      return fake.roots.map(rootOf);
    }
    case 'sampling_model':
      return fake.sampling;
    case 'set_sampling_model':
      fake.sampling = (args.choice as SamplingModel | null) ?? null;
      return null;
    default:
      return UNHANDLED;
  }
}
