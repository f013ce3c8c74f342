// Matching records per time bucket over a search's receive-time range, for the histogram above
// search results. Buckets have a round width (1 s … 30 d) aligned to UTC, chosen so that at most
// the asked number cover the range. PostgreSQL counts them in one grouped query. SQLite, whose
// reads run on the event loop, counts one bucket per query and yields in between, so a wide
// range never stalls other requests (the collector's 201s among them) for longer than a bucket:
// the time index gives each bucket's count and sequence span, and a text match looks up only
// that span of the full-text index.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { AppError } from '../core/errors.js';
import { countMatching, countPerBucket, hasText, receivedSpan, type BucketGrid } from './telemetry-store.js';
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
    const grouped = await countPerBucket(db, kind, tenantId, match, grid);
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
