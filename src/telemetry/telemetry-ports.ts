// The storage ports telemetry reads through: where the two databases need different SQL (the
// query language's conditions, the histogram's counting, reading the log after a position), the
// feature asks for one of these and storage/sqlite or storage/postgres answers.
import type { Kysely } from 'kysely';
import type { Tables } from '../storage/schema.js';
import type { BucketGrid, RecordDialect, RecordMatch } from './telemetry-store.js';
import type { TailBounds, TailPosition, TailRead } from './tail-store.js';

/** Matching records per bucket of a histogram's grid. */
export interface HistogramCounter {
  /** Counts for buckets 0 … grid.count - 1 over [match.since, match.until). */
  count(
    db: Kysely<Tables>,
    tenantId: number,
    match: RecordMatch & { since: number; until: number },
    grid: BucketGrid,
  ): Promise<number[]>;
}

/** Reading the log after a position (live tail; see tail-store.ts). */
export interface TailLog {
  /** The log's current end: a tail started here returns what becomes readable from now on. */
  end(db: Kysely<Tables>): Promise<TailPosition>;
  read(
    db: Kysely<Tables>,
    tenantId: number,
    match: RecordMatch,
    from: TailPosition,
    bounds: TailBounds,
  ): Promise<TailRead>;
}

export type { RecordDialect } from './telemetry-store.js';

export interface TelemetryStorage {
  records: RecordDialect;
  histogram: HistogramCounter;
  tail: TailLog;
}
