// The runtimes Switchboard brings for servers (src-tauri/src/commands/runtimes.rs).
import type { InstalledRuntime, Runtime, RuntimesOverview } from '../bindings';
import * as commands from './commands';

export { runtimesOverview } from './commands';

/** Fetches `runtime` from the package index, checks it and installs it. */
export function installRuntime(runtime: Runtime): Promise<InstalledRuntime> {
  return commands.installRuntime({ name: runtime });
}

/** Removes `runtime`. */
export function removeRuntime(runtime: Runtime): Promise<void> {
  return commands.removeRuntime({ name: runtime });
}

/** Where runtimes and servers' packages come from: the package index (null: PyPI), the npm
 * registry and the HTTP proxy (null: none). */
export type PackageSources = { index: string | null; npmRegistry: string | null; proxy: string | null };

/** Sets where runtimes and servers' packages come from and through. */
export function setPackageSources(sources: PackageSources): Promise<RuntimesOverview> {
  return commands.setPackageSources(sources);
}
