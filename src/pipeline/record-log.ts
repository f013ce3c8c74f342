// The durable record log's write side. A request's records travel as one RecordBatch; the
// group-commit queue hands many batches at once to a RecordLogWriter, which commits them in one
// transaction (one fsync), and only then are the requests answered.

/** One request's records: one tenant, one receive time. Columnar, so it crosses threads cheaply. */
export interface RecordBatch {
  tenantId: number;
  /** Server receive time, epoch milliseconds. */
  receivedAt: number;
  records: string[];
  /** The record's own time, epoch ms; NaN means "use the receive time". */
  eventTimes: number[];
  metas: (string | null)[];
}

/** A dialect's durable writer: resolves only once every batch given is committed. */
export interface RecordLogWriter {
  write(batches: RecordBatch[]): Promise<void>;
  /** Resolves once the writer can take work; rejects when it cannot start. */
  ready(): Promise<void>;
  /** Whether the writer can still accept work (e.g. its thread is alive). */
  readonly healthy: boolean;
  /**
   * Writers that also keep the search index (SQLite's writer thread) bring it up to the log's
   * current end, off the caller's thread. Absent: readers catch it up themselves (search-index.ts).
   */
  catchUpSearchIndex?(): Promise<void>;
  close(): Promise<void>;
}
