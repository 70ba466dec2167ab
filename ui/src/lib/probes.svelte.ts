// What the tool-use probe found of each provider's models (native tools, only in the prompt,
// none, or unknown with the reason), loaded per provider; "Check again" runs it again, and a
// model chosen (or shown) as the default is probed once when it never was. Probes run in the
// engine on their own tasks; a failure to reach the engine only leaves the model unchecked (the
// probe is an aid, never in the way of a setting).
import { modelProbes, probeModel } from '../api/probes';
import type { ModelProbe } from '../bindings';

class ProbeStore {
  /** The kept results, per provider id and model. */
  results = $state<Record<string, Record<string, ModelProbe>>>({});
  /** The probes running now, as `provider\u0000model`. */
  running = $state<string[]>([]);
  #loaded = new Set<string>();

  /** The result kept for `model` of provider `id`, if it was probed. */
  of(id: string, model: string): ModelProbe | undefined {
    return this.results[id]?.[model];
  }

  isRunning(id: string, model: string): boolean {
    return this.running.includes(key(id, model));
  }

  /** Loads the kept results of provider `id` (once). */
  async load(id: string): Promise<void> {
    if (this.#loaded.has(id)) return;
    this.#loaded.add(id);
    try {
      const list = await modelProbes(id);
      const byModel: Record<string, ModelProbe> = {};
      for (const probe of list) byModel[probe.model] = probe;
      this.results = { ...this.results, [id]: { ...byModel, ...this.results[id] } };
    } catch {
      this.#loaded.delete(id);
    }
  }

  /** Runs the probe of `model` of provider `id` (again) and keeps what it found. */
  async check(id: string, model: string): Promise<void> {
    const k = key(id, model);
    if (this.running.includes(k)) return;
    this.running = [...this.running, k];
    try {
      const probe = await probeModel(id, model);
      this.results = { ...this.results, [id]: { ...this.results[id], [model]: probe } };
    } catch {
      // Not reached (no engine): the model stays unchecked.
    } finally {
      this.running = this.running.filter((r) => r !== k);
    }
  }

  /** Probes `model` of provider `id` unless it was probed (or is being probed) already: for a
   * model just added or chosen. Returns at once; the probe goes on in the background. */
  ensure(id: string, model: string | null | undefined): void {
    if (!model) return;
    void this.load(id).then(() => {
      if (!this.of(id, model) && !this.isRunning(id, model)) void this.check(id, model);
    });
  }

  reset(): void {
    this.results = {};
    this.running = [];
    this.#loaded.clear();
  }
}

function key(id: string, model: string): string {
  return `${id}\u0000${model}`;
}

export const probes = new ProbeStore();
