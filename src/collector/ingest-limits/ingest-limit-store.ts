// SQL for per-tenant ingest limits and the collector nodes' heartbeats.
import type { Kysely, Selectable } from 'kysely';
import type { Tables, TenantIngestLimitsTable } from '../../storage/schema.js';

export type IngestLimitRow = Selectable<TenantIngestLimitsTable>;

export function findIngestLimits(db: Kysely<Tables>, tenantId: number): Promise<IngestLimitRow | undefined> {
  return db.selectFrom('tenant_ingest_limits').selectAll().where('tenant_id', '=', tenantId).executeTakeFirst();
}

/** Every tenant's limits: only tenants that have any hold a row, so this stays small. */
export function listIngestLimits(db: Kysely<Tables>): Promise<IngestLimitRow[]> {
  return db.selectFrom('tenant_ingest_limits').selectAll().execute();
}

export async function saveIngestLimits(db: Kysely<Tables>, row: IngestLimitRow): Promise<void> {
  const { tenant_id: _tenant, ...changes } = row;
  await db
    .insertInto('tenant_ingest_limits')
    .values(row)
    .onConflict((conflict) => conflict.column('tenant_id').doUpdateSet(changes))
    .execute();
}

export async function deleteIngestLimits(db: Kysely<Tables>, tenantId: number): Promise<void> {
  await db.deleteFrom('tenant_ingest_limits').where('tenant_id', '=', tenantId).execute();
}

/** Marks this node alive now. */
export async function beatCollectorNode(db: Kysely<Tables>, nodeId: string, now: number): Promise<void> {
  await db
    .insertInto('collector_nodes')
    .values({ node_id: nodeId, last_seen: now })
    .onConflict((conflict) => conflict.column('node_id').doUpdateSet({ last_seen: now }))
    .execute();
}

/** Nodes seen since `since`; rows of nodes long gone are removed on the way. */
export async function countLiveCollectorNodes(
  db: Kysely<Tables>,
  since: number,
  forgetBefore: number,
): Promise<number> {
  await db.deleteFrom('collector_nodes').where('last_seen', '<', forgetBefore).execute();
  const row = await db
    .selectFrom('collector_nodes')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('last_seen', '>=', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A node stopping takes its row with it, so the others count it out at their next beat. */
export async function forgetCollectorNode(db: Kysely<Tables>, nodeId: string): Promise<void> {
  await db.deleteFrom('collector_nodes').where('node_id', '=', nodeId).execute();
}
