// What every install confirmation shows besides the command: the grants a server gets, the
// loader-style variables it sets (mirroring the engine's `config/names.rs`), and values with
// their invisible characters made visible.
import type { Approval, ServerConfig } from '../bindings';

/** What a server is allowed, as a confirmation shows it. */
export type Grants = {
  approval: Approval;
  allowPrivate: boolean;
  inheritEnv: string[];
  /** The folder it runs in; none: the default. */
  cwd?: string | null;
  /** Shown instead of `cwd` when it is set by the installer (a bundle's own folder). */
  cwdLabel?: string;
};

/** The grants of a config about to be saved. */
export function grantsOf(config: ServerConfig): Grants {
  const transport = (config.transport ?? {}) as { cwd?: string | null; allowPrivate?: boolean };
  return {
    approval: config.approval ?? 'ask',
    allowPrivate: !!config.allowPrivate || !!transport.allowPrivate,
    inheritEnv: config.inheritEnv ?? [],
    cwd: transport.cwd ?? null,
  };
}

const LOADER_NAMES = ['NODE_OPTIONS', 'NODE_PATH', 'DOCKER_HOST', 'BASH_ENV', 'ENV', 'PATH', 'PERL5OPT', 'PERL5LIB', 'RUBYOPT', 'RUBYLIB', 'JAVA_TOOL_OPTIONS', '_JAVA_OPTIONS'];
const LOADER_PREFIXES = ['LD_', 'DYLD_', 'PYTHON', 'NPM_CONFIG_', 'UV_', 'PIP_', 'GIT_'];

/** Whether env variable `name` makes a runtime load or run other code (the engine's list). */
export function isLoaderVariable(name: string): boolean {
  const upper = name.toUpperCase();
  return LOADER_NAMES.includes(upper) || LOADER_PREFIXES.some((p) => upper.startsWith(p));
}

/** The loader-style variables a preview warns about: its own `riskyEnv` when the engine gives
 * one, else those among its env names (`env`'s keys, else `envNames`). */
export function riskyEnvOf(preview: { riskyEnv?: string[]; env?: { [key in string]?: string } | null; envNames?: string[] }): string[] {
  if (preview.riskyEnv) return preview.riskyEnv;
  const names = preview.env ? Object.keys(preview.env) : (preview.envNames ?? []);
  return names.filter(isLoaderVariable);
}

/** `text` with control and format characters (bidi overrides, zero-width spaces) written as
 * `\u{…}`, so a value cannot hide or reorder what is shown. */
export function visible(text: string): string {
  return text.replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, (c) => `\\u{${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}}`);
}

/** The values and warnings a registry plan, an update or a bundle preview may carry besides
 * its names (the engine's `env`, `headers`, `newValues`, `riskyEnv`), read when present. */
export type ShownValues = {
  env?: { [key in string]?: string };
  headers?: { [key in string]?: string };
  newValues?: { [key in string]?: string };
  riskyEnv?: string[];
};
