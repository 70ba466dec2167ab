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

/** Sets the package index runtimes come from (null: PyPI). */
export function setRuntimesIndex(url: string | null): Promise<RuntimesOverview> {
  return commands.setRuntimesIndex({ url });
}
