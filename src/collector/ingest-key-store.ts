// SQL for collector ingest keys and the tenant's policy on requiring them. Every statement
// names the tenant.
import type { Kysely, Selectable } from 'kysely';
import type { IngestKeysTable, Tables } from '../storage/schema.js';

export type IngestKeyRow = Selectable<IngestKeysTable>;

export function insertIngestKey(db: Kysely<Tables>, row: IngestKeyRow): Promise<unknown> {
  return db.insertInto('ingest_keys').values(row).execute();
}

export function findIngestKey(db: Kysely<Tables>, tenantId: number, id: string): Promise<IngestKeyRow | undefined> {
  return db
    .selectFrom('ingest_keys')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Newest first; `before` is the (created_at, id) of the last row of the previous page. */
export function listIngestKeys(
  db: Kysely<Tables>,
  tenantId: number,
  page: { limit: number; before?: { createdAt: number; id: string } },
): Promise<IngestKeyRow[]> {
  let query = db.selectFrom('ingest_keys').selectAll().where('tenant_id', '=', tenantId);
  const before = page.before;
  if (before) {
    query = query.where((eb) =>
      eb.or([
        eb('created_at', '<', before.createdAt),
        eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.id)]),
      ]),
    );
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit).execute();
}

/** What the collector checks keys against: every key of the tenant, by hash. */
export function tenantKeyHashes(
  db: Kysely<Tables>,
  tenantId: number,
): Promise<Pick<IngestKeyRow, 'id' | 'key_hash' | 'expires_at' | 'last_used_at'>[]> {
  return db
    .selectFrom('ingest_keys')
    .select(['id', 'key_hash', 'expires_at', 'last_used_at'])
    .where('tenant_id', '=', tenantId)
    .execute();
}

export async function countIngestKeys(db: Kysely<Tables>, tenantId: number): Promise<number> {
  const row = await db
    .selectFrom('ingest_keys')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('tenant_id', '=', tenantId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Deletes the key; false when the tenant has no such key. */
export async function deleteIngestKeyRow(db: Kysely<Tables>, tenantId: number, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('ingest_keys')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export function recordIngestKeyUse(db: Kysely<Tables>, tenantId: number, id: string, at: number): Promise<unknown> {
  return db
    .updateTable('ingest_keys')
    .set({ last_used_at: at })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
}

export async function readIngestPolicy(db: Kysely<Tables>, tenantId: number): Promise<{ requireKey: boolean }> {
  const row = await db
    .selectFrom('collector_ingest_policies')
    .select('require_ingest_key')
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  return { requireKey: row?.require_ingest_key === 1 };
}

export function saveIngestPolicy(
  db: Kysely<Tables>,
  tenantId: number,
  policy: { requireKey: boolean; at: number; by: string },
): Promise<unknown> {
  const values = { require_ingest_key: policy.requireKey ? 1 : 0, updated_at: policy.at, updated_by: policy.by };
  return db
    .insertInto('collector_ingest_policies')
    .values({ tenant_id: tenantId, ...values })
    .onConflict((oc) => oc.column('tenant_id').doUpdateSet(values))
    .execute();
}
