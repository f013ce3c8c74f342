// SQL for unrecognised_shapes: a chunk's tallies added to the counts (an increment in SQL, so
// workers on other nodes add up rather than overwrite), the per-tenant shape limit, and the list
// Settings › Collector reads. Every query is scoped by tenant.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Tables } from '../../storage/schema.js';
import type { UnrecognisedShapesTable } from '../../storage/tables/unrecognised.js';
import { OVERFLOW_SHAPE, SHAPE_LIMITS, type UnrecognisedTally } from './unrecognised-shape.js';

type Db = Kysely<Tables> | Transaction<Tables>;

const ROWS_PER_STATEMENT = 100;

/** The newer of the row's and the tally's values, for the sample and the last time. */
const newer = <Column extends 'last_seen_at' | 'sample'>(column: Column) =>
  sql<
    UnrecognisedShapesTable[Column]
  >`CASE WHEN excluded.last_seen_at >= unrecognised_shapes.last_seen_at THEN ${sql.ref(`excluded.${column}`)} ELSE ${sql.ref(`unrecognised_shapes.${column}`)} END`;

/**
 * Adds a chunk's tallies. A tenant's shapes past SHAPE_LIMITS.maxShapesPerTenant are counted
 * under OVERFLOW_SHAPE. Run inside the chunk's transaction: a tenant's records are processed by
 * one detection at a time (the detection thread, or the worker owning the tenant's stream
 * partition), so the limit check and the insert see the same rows.
 */
export async function addUnrecognised(db: Db, tallies: readonly UnrecognisedTally[]): Promise<void> {
  if (tallies.length === 0) return;
  const rows: UnrecognisedTally[] = [];
  for (const [tenantId, list] of byTenant(tallies)) {
    const known = new Set(
      (await db.selectFrom('unrecognised_shapes').select('shape').where('tenant_id', '=', tenantId).execute()).map(
        (row) => row.shape,
      ),
    );
    let room = SHAPE_LIMITS.maxShapesPerTenant - [...known].filter((shape) => shape !== OVERFLOW_SHAPE).length;
    let overflow: UnrecognisedTally | undefined;
    for (const tally of list) {
      if (known.has(tally.shape) || room > 0) {
        if (!known.has(tally.shape)) room -= 1;
        rows.push(tally);
        continue;
      }
      overflow = overflow
        ? {
            ...overflow,
            records: overflow.records + tally.records,
            firstSeen: Math.min(overflow.firstSeen, tally.firstSeen),
            ...(tally.lastSeen >= overflow.lastSeen ? { lastSeen: tally.lastSeen, sample: tally.sample } : {}),
          }
        : { ...tally, shape: OVERFLOW_SHAPE, keys: [] };
    }
    if (overflow) rows.push(overflow);
  }
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    await db
      .insertInto('unrecognised_shapes')
      .values(
        rows.slice(i, i + ROWS_PER_STATEMENT).map((tally) => ({
          tenant_id: tally.tenantId,
          shape: tally.shape,
          keys: JSON.stringify(tally.keys),
          records: tally.records,
          first_seen_at: tally.firstSeen,
          last_seen_at: tally.lastSeen,
          sample: tally.sample,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'shape']).doUpdateSet({
          records: sql`unrecognised_shapes.records + excluded.records`,
          first_seen_at: sql`CASE WHEN excluded.first_seen_at < unrecognised_shapes.first_seen_at THEN excluded.first_seen_at ELSE unrecognised_shapes.first_seen_at END`,
          last_seen_at: newer('last_seen_at'),
          sample: newer('sample'),
        }),
      )
      .execute();
  }
}

function byTenant(tallies: readonly UnrecognisedTally[]): Map<number, UnrecognisedTally[]> {
  const out = new Map<number, UnrecognisedTally[]>();
  for (const tally of tallies) {
    const list = out.get(tally.tenantId) ?? [];
    list.push(tally);
    out.set(tally.tenantId, list);
  }
  return out;
}

export interface UnrecognisedRow {
  shape: string;
  keys: string[];
  records: number;
  first_seen_at: number;
  last_seen_at: number;
  sample: string;
}

/** The tenant's shapes, the most recently seen first. */
export async function listUnrecognised(db: Db, tenantId: number): Promise<UnrecognisedRow[]> {
  const rows = await db
    .selectFrom('unrecognised_shapes')
    .select(['shape', 'keys', 'records', 'first_seen_at', 'last_seen_at', 'sample'])
    .where('tenant_id', '=', tenantId)
    .orderBy('last_seen_at', 'desc')
    .orderBy('shape')
    .execute();
  // BIGINT columns arrive as numbers on both dialects (storage/database.ts sets PostgreSQL's parser).
  return rows.map((row) => ({ ...row, keys: JSON.parse(row.keys) as string[] }));
}
