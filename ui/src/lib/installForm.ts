// The pure side of installing servers: what a registry entry needs (runtimes, values), the
// install form's starting values and its checks, the fields of a bundle's `user_config`, and
// whether a dropped file is a bundle. Registry and bundle text is untrusted: it is only ever
// shown as text.
import type { FormField, Input, InstallRequest, RegistryEntry, UserConfigField } from '../bindings';

/** The program each package registry's servers run with. */
const RUNNERS: Record<string, string> = { npm: 'npx', pypi: 'uvx', oci: 'docker', nuget: 'dnx' };

/** What installing `entry` will need: the programs to run it and the values to give. */
export type Needs = { runtimes: string[]; values: string[]; secrets: string[] };

/** The programs, the required values without a default and the secrets of `entry` (all its
 * packages and remotes). */
export function needsOf(entry: RegistryEntry): Needs {
  const runtimes = new Set<string>();
  const values = new Set<string>();
  const secrets = new Set<string>();
  // A fixed value asks only for its `{variables}`.
  const note = (name: string, input: Input) => {
    if (input.value !== undefined) {
      for (const [key, variable] of Object.entries(input.variables ?? {})) note(key, variable);
    } else if (input.isSecret) secrets.add(name);
    else if (input.isRequired && input.default === undefined) values.add(name);
  };
  for (const p of entry.packages) {
    const runner = p.runtimeHint ?? RUNNERS[p.registryType];
    if (runner) runtimes.add(runner);
    for (const v of p.environmentVariables) note(v.name, v);
    for (const a of [...p.runtimeArguments, ...p.packageArguments]) note(a.name ?? a.valueHint ?? a.type, a);
  }
  for (const r of entry.remotes) for (const h of r.headers) note(h.name, h);
  return { runtimes: [...runtimes], values: [...values], secrets: [...secrets] };
}

/** The form's starting values: each field's default, else empty. */
export function initialValues(fields: FormField[]): Record<string, string> {
  return Object.fromEntries(fields.map((f) => [f.key, f.default ?? '']));
}

/** The keys of required fields left empty, in form order. */
export function missingRequired(fields: FormField[], values: Record<string, string>): string[] {
  return fields.filter((f) => f.required && !(values[f.key] ?? '').trim()).map((f) => f.key);
}

/** The install request for `option` with the non-empty values. */
export function installRequest(option: string | undefined, serverName: string, values: Record<string, string>): InstallRequest {
  const given = Object.entries(values).filter(([, v]) => v.trim() !== '');
  const name = serverName.trim();
  return { option, ...(name ? { serverName: name } : {}), values: Object.fromEntries(given) };
}

/** A bundle's `user_config` as form fields (sensitive ones secret; defaults as text). */
export function bundleFields(config: Record<string, UserConfigField>): FormField[] {
  return Object.entries(config).map(([key, f]) => ({
    key,
    target: 'config',
    description: f.title ? (f.description ? `${f.title}: ${f.description}` : f.title) : f.description,
    required: f.required,
    secret: f.sensitive,
    default: defaultText(f.default),
    choices: f.type === 'boolean' ? ['true', 'false'] : [],
    format: f.type,
  }));
}

function defaultText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) return value.map(String).join(',');
  return String(value);
}

/** Whether `path` names an MCP Bundle. */
export function isBundlePath(path: string): boolean {
  return /\.mcpb$/i.test(path);
}

/** An http(s) URL, else null (a repository link is only opened when it is one). */
export function webUrl(url: string | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null;
  } catch {
    return null;
  }
}
