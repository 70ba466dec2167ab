// Installing servers (src-tauri/src/commands/install.rs): the MCP Registry, MCP Bundles and
// install links. Only the stores in lib/ call these.
import type {
  BundleInstall,
  BundlePreview,
  InstallOption,
  InstallPlan,
  InstallRequest,
  Installed,
  LinkPreview,
  RegistryEntry,
  RegistryPage,
  UpdatePlan,
} from '../bindings';
import * as commands from './commands';

export { registryCached, registryUrl, takeOpenedLinks } from './commands';

/** A page of the registry's latest entries matching `query`, after `cursor`. */
export function registrySearch(query: string, cursor: string | null): Promise<RegistryPage> {
  return commands.registrySearch({ query, cursor });
}

/** Sets the registry URL (empty: the official registry). */
export function setRegistryUrl(url: string): Promise<void> {
  return commands.setRegistryUrl({ url });
}

/** The ways `entry` can be installed, each with its form. */
export function registryInstallOptions(entry: RegistryEntry): Promise<InstallOption[]> {
  return commands.registryInstallOptions({ entry });
}

/** What installing `entry` would save and run (its runtime looked for); saves nothing. */
export function planRegistryInstall(entry: RegistryEntry, request: InstallRequest): Promise<InstallPlan> {
  return commands.planRegistryInstall({ entry, request });
}

/** Installs `entry` as the plan with `digest` showed (refused when the plan made now differs):
 * saved, started, its tools listed. */
export function installFromRegistry(entry: RegistryEntry, request: InstallRequest, digest: string): Promise<Installed> {
  return commands.installFromRegistry({ entry, request, digest });
}

/** What updating server `id` would change; null when it is up to date. */
export function checkServerUpdate(id: string): Promise<UpdatePlan | null> {
  return commands.checkServerUpdate({ id });
}

/** Applies the update `checkServerUpdate` showed with `digest` (refused when it changed since). */
export function applyServerUpdate(id: string, digest: string): Promise<Installed> {
  return commands.applyServerUpdate({ id, digest });
}

/** What the bundle at `path` is and asks for; unpacks nothing. */
export function previewBundle(path: string): Promise<BundlePreview> {
  return commands.previewBundle({ path });
}

/** Installs the bundle at `path` with the user's values, if its bytes still have the `digest`
 * its preview showed. */
export function installBundle(path: string, request: BundleInstall, digest: string): Promise<Installed> {
  return commands.installBundle({ path, request, digest });
}

/** What install link `link` would save, for the confirmation; saves nothing. */
export function previewInstallLink(link: string): Promise<LinkPreview> {
  return commands.previewInstallLink({ link });
}

/** Installs the server of `link`, after the user confirmed it and ticked the loader-style
 * variables it sets (`acceptedRiskyEnv`). */
export function installFromLink(link: string, acceptedRiskyEnv: string[] = []): Promise<Installed> {
  return commands.installFromLink({ link, acceptedRiskyEnv });
}
