// Read models behind the web UI's overview and observation list: observations per day and level
// (every day present, zeros included) with the last 24 hours, and which case each observation is in.
import type { Kysely } from 'kysely';
import type { Tables } from '../storage/schema.js';
import { LEVELS, type Level } from './observation-service.js';
import { countObservationsByDay, DAY_MS } from './observation-stats-store.js';
import { findObservationCases } from './observation-store.js';

export const MAX_STATS_DAYS = 90;
const MINUTE_MS = 60_000;

export type LevelCounts = Record<Level, number> & { total: number };

export interface ObservationStats {
  days: ({ date: string } & LevelCounts)[];
  since: string;
  until: string;
  utc_offset_minutes: number;
  last_24_hours: LevelCounts;
}

function emptyCounts(): LevelCounts {
  return { informational: 0, low: 0, medium: 0, high: 0, critical: 0, total: 0 };
}

function add(counts: LevelCounts, level: string, count: number): void {
  // A level outside Sigma's five cannot be stored (writes are validated); count it in the total anyway.
  if ((LEVELS as readonly string[]).includes(level)) counts[level as Level] += count;
  counts.total += count;
}

/**
 * Counts per day for the `days` days ending today, in the day boundaries of `utcOffsetMinutes`
 * (a fixed offset: 0 is UTC; the UI passes the browser's), oldest first, plus the last 24 hours.
 * A day's count is of observations whose first record falls in it.
 */
export async function observationStats(
  db: Kysely<Tables>,
  tenantId: number,
  options: { days: number; utcOffsetMinutes: number },
  now = Date.now(),
): Promise<ObservationStats> {
  const offset = options.utcOffsetMinutes * MINUTE_MS;
  // Local midnight of today, as an instant: shift into local time, floor to the day, shift back.
  const todayStart = Math.floor((now + offset) / DAY_MS) * DAY_MS - offset;
  const since = todayStart - (options.days - 1) * DAY_MS;
  const until = todayStart + DAY_MS;
  const rows = await countObservationsByDay(db, tenantId, since, until);
  const days = Array.from({ length: options.days }, (_, index) => ({
    date: new Date(since + index * DAY_MS + offset).toISOString().slice(0, 10),
    ...emptyCounts(),
  }));
  for (const row of rows) {
    const day = days[row.day];
    if (day) add(day, row.level, row.count);
  }
  // The last 24 hours straddle two day buckets, so they are one more small indexed read; records
  // dated a little ahead of the server's clock (skewed senders) count as recent too.
  const recent = emptyCounts();
  for (const row of await countObservationsByDay(db, tenantId, now - DAY_MS, now + DAY_MS))
    add(recent, row.level, row.count);

  return {
    days,
    since: new Date(since).toISOString(),
    until: new Date(until).toISOString(),
    utc_offset_minutes: options.utcOffsetMinutes,
    last_24_hours: recent,
  };
}

export interface ObservationCase {
  id: string;
  number: number;
  title: string;
  status: string;
  severity: string;
  score: number;
}

/** The case of each observation id given that is the tenant's and in a case; the others are left out. */
export async function casesOfObservations(
  db: Kysely<Tables>,
  tenantId: number,
  observationIds: readonly string[],
): Promise<Record<string, ObservationCase>> {
  const rows = await findObservationCases(db, tenantId, [...new Set(observationIds)]);
  const result: Record<string, ObservationCase> = {};
  for (const row of rows) {
    result[row.observation_id] = {
      id: row.id,
      number: row.number,
      title: row.title,
      status: row.status,
      severity: row.severity,
      score: row.score,
    };
  }
  return result;
}
