// SQL for logsource_sightings: the chunk commit's upsert (newest time wins, so commits from any
// scale-out worker in any order leave the same row) and coverage's read of one tenant's recent sightings.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Tables } from '../storage/schema.js';
import type { LogSource } from '../telemetry/normalise/event.js';
import type { LogsourceSighting } from './logsource-sightings.js';

type Db = Kysely<Tables> | Transaction<Tables>;

/** Rows per INSERT statement: well under SQLite's and PostgreSQL's bound-parameter limits. */
const ROWS_PER_STATEMENT = 200;

export async function upsertLogsourceSightings(db: Db, sightings: readonly LogsourceSighting[]): Promise<void> {
  for (let i = 0; i < sightings.length; i += ROWS_PER_STATEMENT) {
    await db
      .insertInto('logsource_sightings')
      .values(
        sightings.slice(i, i + ROWS_PER_STATEMENT).map((sighting) => ({
          tenant_id: sighting.tenantId,
          product: sighting.product,
          category: sighting.category,
          service: sighting.service,
          first_seen: sighting.firstSeen,
          last_seen: sighting.lastSeen,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'product', 'category', 'service']).doUpdateSet({
          first_seen: sql<number>`CASE WHEN excluded.first_seen < logsource_sightings.first_seen THEN excluded.first_seen ELSE logsource_sightings.first_seen END`,
          last_seen: sql<number>`CASE WHEN excluded.last_seen > logsource_sightings.last_seen THEN excluded.last_seen ELSE logsource_sightings.last_seen END`,
        }),
      )
      .execute();
  }
}

export interface SeenLogsource {
  logsource: LogSource;
  firstSeen: number;
  lastSeen: number;
}

/** The tenant's logsources seen at or after `since`, most recent first. */
export async function recentLogsources(db: Db, tenantId: number, since: number): Promise<SeenLogsource[]> {
  const rows = await db
    .selectFrom('logsource_sightings')
    .select(['product', 'category', 'service', 'first_seen', 'last_seen'])
    .where('tenant_id', '=', tenantId)
    .where('last_seen', '>=', since)
    .orderBy('last_seen', 'desc')
    .orderBy('product')
    .orderBy('category')
    .orderBy('service')
    .execute();
  return rows.map((row) => ({
    logsource: {
      ...(row.product !== '' ? { product: row.product } : {}),
      ...(row.category !== '' ? { category: row.category } : {}),
      ...(row.service !== '' ? { service: row.service } : {}),
    },
    firstSeen: row.first_seen,
    lastSeen: row.last_seen,
  }));
}
