// One loop for the work that runs in the background (indexing, dispatching, purging, …): it
// runs, waits, and runs again; a poke runs it at once (or once more right after a run under
// way); a failed run is reported and retried after a backoff that doubles up to a cap and
// resets on success; stop waits for the run under way. Each loop keeps its own timing.

export interface BackgroundLoopOptions {
  /** One run. Resolves with the wait before the next run in ms (absent: `idleMs`). */
  run(): Promise<number | undefined>;
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
  private stopped = true;
  private failures = 0;

  constructor(private readonly options: BackgroundLoopOptions) {}

  /** Runs the first time at once. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /**
   * Runs now, or, if a run is under way, once more as soon as it ends. While backing off after
   * a failure a poke waits for the backoff: an outage is not retried on every poke.
   */
  poke(): void {
    if (this.stopped || (this.failures > 0 && !this.running)) return;
    if (this.running) {
      this.poked = true;
      return;
    }
    this.schedule(0);
  }

  /** No further runs; resolves once the run under way (if any) has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.runOnce(), ms);
    this.timer.unref();
  }

  private runOnce(): void {
    this.timer = undefined;
    this.poked = false;
    this.running = this.attempt().then((wait) => {
      this.running = undefined;
      if (this.stopped) return;
      this.schedule(this.poked && this.failures === 0 ? 0 : wait);
    });
  }

  /** The run, and the wait it leaves before the next one. */
  private async attempt(): Promise<number> {
    try {
      const wait = await this.options.run();
      this.failures = 0;
      return wait ?? this.options.idleMs;
    } catch (error) {
      this.failures++;
      this.options.onError(error);
      return backoffMs(this.failures, this.options.backoff.baseMs, this.options.backoff.maxMs);
    }
  }
}
