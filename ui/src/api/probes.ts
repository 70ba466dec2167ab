// The tool-use probe of a provider's model (the probe commands of
// src-tauri/src/commands/providers.rs): run it (or join the running one) and list what was kept.
import type { ModelProbe } from '../bindings';
import * as commands from './commands';

/** Probes how `model` of provider `id` calls tools; the result is kept (a failure is `unknown`). */
export function probeModel(id: string, model: string): Promise<ModelProbe> {
  return commands.probeModel({ id, model });
}

/** What the probe last found of each probed model of provider `id`. */
export function modelProbes(id: string): Promise<ModelProbe[]> {
  return commands.modelProbes({ id });
}
