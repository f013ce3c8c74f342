// Matching records per time bucket over a search's receive-time range, for the histogram above
// search results. Buckets have a round width (1 s … 30 d) aligned to UTC, chosen so that at most
// the asked number cover the range. PostgreSQL counts them in grouped queries over
// PG_SLICES parts of the range at once, each on its own pooled connection and reading ahead
// (effective_io_concurrency) the heap pages its bitmap scan will visit: a one-day histogram of
// a busy tenant reads every record of the day, and on a cold cache that is disk reads, which one
// backend issuing 8 KB reads one at a time waits for in turn. SQLite, whose
// reads run on the event loop, counts one bucket per query and yields in between, so a wide
// range never stalls other requests (the collector's 201s among them) for longer than a bucket:
// the time index gives each bucket's count and sequence span, and a text match looks up only
// that span of the full-text index.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { sql, type Kysely } from 'kysely';
import { AppError } from '../core/errors.js';
import type { Tables } from '../storage/schema.js';
import {
  countMatching,
  countPerBucket,
  hasText,
  receivedSpan,
  type BucketGrid,
  type RecordMatch,
} from './telemetry-store.js';
import { parseSearch, readYourWrites, type SearchInput, type TelemetryReader } from './telemetry-service.js';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WIDTHS = [
  SECOND,
  2 * SECOND,
  5 * SECOND,
  10 * SECOND,
  15 * SECOND,
  30 * SECOND,
  MINUTE,
  2 * MINUTE,
  5 * MINUTE,
  10 * MINUTE,
  15 * MINUTE,
  30 * MINUTE,
  HOUR,
  2 * HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
  DAY,
  2 * DAY,
  7 * DAY,
  14 * DAY,
  30 * DAY,
];

export const MAX_HISTOGRAM_BUCKETS = 200;

export interface Histogram {
  since: number;
  until: number;
  width: number;
  buckets: { start: number; count: number }[];
  total: number;
}

/** The smallest round width that covers [since, until) in at most `maxBuckets` aligned buckets. */
export function bucketGrid(since: number, until: number, maxBuckets: number): BucketGrid {
  const fits = (width: number) => Math.ceil((until - Math.floor(since / width) * width) / width) <= maxBuckets;
  const width = WIDTHS.find(fits) ?? Math.ceil((until - since) / DAY / (maxBuckets - 1)) * DAY;
  const origin = Math.floor(since / width) * width;
  return { origin, width, count: Math.ceil((until - origin) / width) };
}

export async function histogramTelemetry(
  reader: TelemetryReader,
  tenantId: number,
  input: SearchInput & { since: string },
  maxBuckets: number,
  now = Date.now(),
): Promise<Histogram> {
  const match = parseSearch({
    ...input,
    until: input.until ?? new Date(Math.max(now, Date.parse(input.since) + 1)).toISOString(),
  });
  const { since, until } = match;
  if (since === undefined || until === undefined) throw new Error('parseSearch keeps the since and until it is given');
  if (maxBuckets < 2 || maxBuckets > MAX_HISTOGRAM_BUCKETS) {
    throw new AppError(
      'invalid_request',
      `buckets must be between 2 and ${MAX_HISTOGRAM_BUCKETS} (got ${maxBuckets})`,
      { extensions: { field: 'buckets' } },
    );
  }
  await readYourWrites(reader, match);
  const { db, kind } = reader.database;
  const grid = bucketGrid(since, until, maxBuckets);
  const counts: number[] = [];
  if (kind === 'sqlite') {
    const narrowed = match.query !== undefined || (match.fields?.length ?? 0) > 0;
    const text = hasText(match);
    for (let i = 0; i < grid.count; i++) {
      const from = Math.max(since, grid.origin + i * grid.width);
      const to = Math.min(until, grid.origin + (i + 1) * grid.width);
      const bucket = { ...match, since: from, until: to };
      if (narrowed && !text) {
        // Field conditions only: one pass over the bucket's records; the span would not narrow it.
        counts.push(await countMatching(db, kind, tenantId, bucket));
      } else {
        const span = await receivedSpan(db, tenantId, from, to);
        if (span.count === 0 || !narrowed) counts.push(span.count);
        else {
          const scope = { kind: 'window', afterSeq: span.firstSeq - 1, upToSeq: span.lastSeq } as const;
          counts.push(await countMatching(db, kind, tenantId, bucket, scope));
        }
      }
      await yieldToEventLoop();
    }
  } else {
    const grouped = await countPostgresSlices(db, tenantId, { ...match, since, until }, grid);
    for (let i = 0; i < grid.count; i++) counts.push(grouped.get(i) ?? 0);
  }
  return {
    since,
    until,
    width: grid.width,
    buckets: counts.map((count, i) => ({ start: grid.origin + i * grid.width, count })),
    total: counts.reduce((sum, count) => sum + count, 0),
  };
}

/**
 * Parts of a PostgreSQL histogram's range counted at once: a cold one-day histogram spends its
 * time waiting for pages from disk, and two parts reading ahead at once wait about half as long
 * as one; four gain nothing more on two cores (docs/performance.md, bench:telemetry).
 */
export const PG_SLICES = 2;
/**
 * Pages a histogram's bitmap scan asks the kernel for ahead of reading them, unless the server
 * is set higher (0 where PostgreSQL cannot prefetch stays 0). PostgreSQL's default of 1 leaves
 * a cold histogram waiting for one page at a time (docs/performance.md, bench:telemetry).
 */
export const PG_PREFETCH_PAGES = 128;

/** PostgreSQL: counts per bucket of `grid` over [match.since, match.until), PG_SLICES parts at once. */
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
        return countPerBucket(trx, 'postgres', tenantId, { ...match, since, until }, grid);
      }),
    );
  }
  const merged = new Map<number, number>();
  for (const counted of await Promise.all(slices))
    for (const [bucket, n] of counted) merged.set(bucket, (merged.get(bucket) ?? 0) + n);
  return merged;
}
