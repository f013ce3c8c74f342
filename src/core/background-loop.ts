// One loop for the work that runs in the background (indexing, dispatching, purging, …): it
// runs, waits, and runs again; a poke runs it at once (or once more right after a run under
// way); a failed run is reported and retried after a backoff that doubles up to a cap and
// resets on success; stop waits for the run under way. Each loop keeps its own timing.

/**
 * What a run leaves before the next one: nothing (the idle wait), a wait in ms that a poke cuts
 * short as it does the idle wait, or a rest that pokes do not cut short: work that paces itself
 * to leave others their share would otherwise be run flat out by the very activity it yields to.
 */
export type NextRun = number | { restMs: number } | undefined;

export interface BackgroundLoopOptions {
  /** One run. Resolves with the wait before the next run (absent: `idleMs`). */
  run(): Promise<NextRun>;
  /** The wait after a run that asked for none, unless poked first. */
  idleMs: number;
  /** After a failed run: `baseMs`, doubling with each failure in a row, at most `maxMs`. */
  backoff: { baseMs: number; maxMs: number };
  /** Told about every failed run; the loop goes on. */
  onError(error: unknown): void;
}

/** The wait after `failures` failed runs in a row (1: the first). */
export function backoffMs(failures: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(failures - 1, 0), 30));
}

export class BackgroundLoop {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private poked = false;
  /** The wait under way is a backoff or a rest: a poke does not cut it short. */
  private firm = false;
  private stopped = true;
  private failures = 0;

  constructor(private readonly options: BackgroundLoopOptions) {}

  /** Runs the first time after `delayMs` (at once by default), or at a poke before then. */
  start(delayMs = 0): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(delayMs, false);
  }

  /**
   * Runs now, or, if a run is under way, once more as soon as it ends. While backing off after
   * a failure a poke waits for the backoff: an outage is not retried on every poke. A rest the
   * run asked for is waited out too.
   */
  poke(): void {
    if (this.stopped) return;
    if (this.running) this.poked = true;
    else if (!this.firm) this.schedule(0, false);
  }

  /** No further runs (a wait under way ends at once); resolves once the run under way has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private schedule(ms: number, firm: boolean): void {
    this.firm = firm;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.runOnce(), ms);
    this.timer.unref();
  }

  private runOnce(): void {
    this.timer = undefined;
    this.poked = false;
    this.running = this.attempt().then(({ ms, firm }) => {
      this.running = undefined;
      if (this.stopped) return;
      if (firm) this.schedule(ms, true);
      else this.schedule(this.poked ? 0 : ms, false);
    });
  }

  /** The run, and the wait it leaves before the next one. */
  private async attempt(): Promise<{ ms: number; firm: boolean }> {
    try {
      const next = await this.options.run();
      this.failures = 0;
      if (typeof next === 'object') return { ms: next.restMs, firm: true };
      return { ms: next ?? this.options.idleMs, firm: false };
    } catch (error) {
      this.failures++;
      try {
        this.options.onError(error);
      } catch {
        // A reporter that fails (a closed logger) must not end the loop: the next run is still due.
      }
      const { baseMs, maxMs } = this.options.backoff;
      return { ms: backoffMs(this.failures, baseMs, maxMs), firm: true };
    }
  }
}
