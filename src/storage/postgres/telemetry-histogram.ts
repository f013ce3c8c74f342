// PostgreSQL's histogram counting: grouped queries over PG_SLICES parts of the range at once,
// each on its own pooled connection and reading ahead (effective_io_concurrency) the heap pages
// its bitmap scan will visit: a one-day histogram of a busy tenant reads every record of the
// day, and on a cold cache that is disk reads, which one backend issuing 8 KB reads one at a
// time waits for in turn.
import { sql, type Kysely } from 'kysely';
import type { Tables } from '../schema.js';
import type { HistogramCounter } from '../../telemetry/telemetry-ports.js';
import { countPerBucket, matchConditions, type BucketGrid, type RecordMatch } from '../../telemetry/telemetry-store.js';
import { postgresRecordDialect } from './telemetry-dialect.js';

export const postgresHistogram: HistogramCounter = {
  async count(db, tenantId, match, grid) {
    const grouped = await countPostgresSlices(db, tenantId, match, grid);
    const counts: number[] = [];
    for (let i = 0; i < grid.count; i++) counts.push(grouped.get(i) ?? 0);
    return counts;
  },
};

/**
 * Parts of a PostgreSQL histogram's range counted at once. Measured on a one-day histogram of
 * 169,000 records on two cores, cold, each part reading ahead 128 pages: one query 0.7–1.0 s,
 * two 0.46–0.59 s, four 0.51–0.63 s (warm: 0.37–0.42, 0.24–0.27 and 0.26–0.30 s).
 */
export const PG_SLICES = 2;
/**
 * Pages a histogram's bitmap scan asks the kernel for ahead of reading them, unless the server
 * is set higher (0 where PostgreSQL cannot prefetch stays 0). With PostgreSQL's default of 1 a
 * cold one-day histogram took 1.3–1.7 s; with 128, 0.8–0.9 s.
 */
export const PG_PREFETCH_PAGES = 128;

/** Counts per bucket of `grid` over [match.since, match.until), PG_SLICES parts at once. */
async function countPostgresSlices(
  db: Kysely<Tables>,
  tenantId: number,
  match: RecordMatch & { since: number; until: number },
  grid: BucketGrid,
): Promise<Map<number, number>> {
  const perSlice = Math.ceil(grid.count / Math.min(PG_SLICES, grid.count));
  const slices: Promise<Map<number, number>>[] = [];
  for (let first = 0; first < grid.count; first += perSlice) {
    const since = Math.max(match.since, grid.origin + first * grid.width);
    const until = Math.min(match.until, grid.origin + (first + perSlice) * grid.width);
    slices.push(
      db.transaction().execute(async (trx) => {
        await sql`SELECT set_config('effective_io_concurrency',
          (CASE WHEN current_setting('effective_io_concurrency')::int = 0 THEN 0
                ELSE GREATEST(current_setting('effective_io_concurrency')::int, ${PG_PREFETCH_PAGES}) END)::text,
          true)`.execute(trx);
        const slice = { ...match, since, until };
        return countPerBucket(trx, tenantId, matchConditions(postgresRecordDialect, tenantId, slice), grid);
      }),
    );
  }
  const merged = new Map<number, number>();
  for (const counted of await Promise.all(slices))
    for (const [bucket, n] of counted) merged.set(bucket, (merged.get(bucket) ?? 0) + n);
  return merged;
}
