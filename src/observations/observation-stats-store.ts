// SQL behind the overview's observation figures: counts per day and level over a time range.
// Times are stored as integer epoch milliseconds, so days are bucketed by integer arithmetic
// that SQLite and PostgreSQL evaluate alike (no date functions, which differ between them).
import { sql, type Kysely } from 'kysely';
import type { Tables } from '../storage/schema.js';

export const DAY_MS = 86_400_000;

export interface DayLevelCount {
  /** Days after `since` (0: the day starting at `since`). */
  day: number;
  level: string;
  count: number;
}

/**
 * Observations of the tenant whose first record falls in [since, until), counted per day
 * (`since` + n × 24 h) and level. Reads only the (tenant_id, first_time, level) index.
 */
export async function countObservationsByDay(
  db: Kysely<Tables>,
  tenantId: number,
  since: number,
  until: number,
): Promise<DayLevelCount[]> {
  // first_time ≥ since, so truncating is flooring. The cast matters on SQLite, whose driver binds
  // JavaScript numbers as REAL, which would make the division fractional.
  const day = sql<number>`CAST((first_time - ${since}) / ${sql.lit(DAY_MS)} AS INTEGER)`;
  const rows = await db
    .selectFrom('observations')
    .select([day.as('day_index'), 'level', (eb) => eb.fn.countAll<number | string>().as('n')])
    .where('tenant_id', '=', tenantId)
    .where('first_time', '>=', since)
    .where('first_time', '<', until)
    .groupBy([sql`day_index`, 'level'])
    .execute();
  return rows.map((row) => ({ day: row.day_index, level: row.level, count: Number(row.n) }));
}
