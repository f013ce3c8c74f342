// Matching records per time bucket over a search's receive-time range, for the histogram above
// search results. Buckets have a round width (1 s … 30 d) aligned to UTC, chosen so that at most
// the asked number cover the range. How the buckets are counted is the database's
// (HistogramCounter: storage/sqlite/telemetry-histogram.ts, storage/postgres/telemetry-histogram.ts).
import { AppError } from '../core/errors.js';
import type { BucketGrid } from './telemetry-store.js';
import { parseSearch, readYourWrites, type SearchInput, type TelemetryReader } from './telemetry-service.js';
import type { IndexFreshness } from './search-index.js';

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
  freshness: IndexFreshness;
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
  const freshness = await readYourWrites(reader, match, tenantId);
  const grid = bucketGrid(since, until, maxBuckets);
  const counts = await reader.storage.histogram.count(reader.database.db, tenantId, { ...match, since, until }, grid);
  return {
    since,
    until,
    width: grid.width,
    buckets: counts.map((count, i) => ({ start: grid.origin + i * grid.width, count })),
    total: counts.reduce((sum, count) => sum + count, 0),
    freshness,
  };
}
