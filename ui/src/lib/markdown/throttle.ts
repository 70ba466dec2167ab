// Coalesces bursts of updates into one per animation frame: only the last scheduled job of a
// frame runs. Streaming text arrives far faster than the screen refreshes.
export class FrameThrottle {
  #job: (() => void) | null = null;
  #frame: number | null = null;

  /** Runs `job` at the next animation frame, replacing any job not yet run. */
  schedule(job: () => void): void {
    this.#job = job;
    if (this.#frame !== null) return;
    this.#frame = requestAnimationFrame(() => this.flush());
  }

  /** Runs the pending job now, if there is one. */
  flush(): void {
    if (this.#frame !== null) cancelAnimationFrame(this.#frame);
    this.#frame = null;
    const job = this.#job;
    this.#job = null;
    job?.();
  }

  /** Drops the pending job. */
  cancel(): void {
    if (this.#frame !== null) cancelAnimationFrame(this.#frame);
    this.#frame = null;
    this.#job = null;
  }
}
