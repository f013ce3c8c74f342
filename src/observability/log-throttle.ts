// Turns a flood of identical events into one log line per interval with a count, so that an
// overload or a misbehaving client cannot flood the log (or slow the server writing it).
export interface ThrottledLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

export class LogThrottle {
  private readonly counts = new Map<string, { count: number; fields: Record<string, unknown> }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly log: () => ThrottledLog | undefined,
    private readonly intervalMs = 10_000,
  ) {}

  /** Counts one event under `message`; the first of an interval is logged at once, the rest in a summary. */
  note(message: string, fields: Record<string, unknown> = {}): void {
    const seen = this.counts.get(message);
    if (seen) {
      seen.count++;
      return;
    }
    this.counts.set(message, { count: 0, fields });
    this.log()?.warn(fields, message);
    this.timer ??= setTimeout(() => {
      this.flush();
    }, this.intervalMs).unref();
  }

  /** Logs what was counted since each message was first logged. */
  flush(): void {
    this.timer = undefined;
    for (const [message, { count, fields }] of this.counts) {
      if (count > 0)
        this.log()?.warn({ ...fields, repeated: count, interval_ms: this.intervalMs }, `${message} (repeated)`);
    }
    this.counts.clear();
  }
}
