// The global "allow read-only tools without asking" switch: tools whose server marks them
// read-only run without an approval question (the engine keeps it as a setting).
import * as api from '../api';

class ReadOnlyTools {
  allowed = $state(false);
  loaded = $state(false);

  async load(): Promise<void> {
    this.allowed = await api.autoAllowReadOnly();
    this.loaded = true;
  }

  /** Forgets what was read (tests). */
  reset(): void {
    this.allowed = false;
    this.loaded = false;
  }

  async set(on: boolean): Promise<void> {
    await api.setAutoAllowReadOnly(on);
    this.allowed = on;
  }
}

export const readOnlyTools = new ReadOnlyTools();
