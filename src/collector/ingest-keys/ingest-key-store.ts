// SQL for collector ingest keys and the tenant's policy on requiring them. Every statement
// names the tenant.
import type { Kysely, Selectable } from 'kysely';
import type { IngestKeysTable, Tables } from '../../storage/schema.js';

export type IngestKeyRow = Selectable<IngestKeysTable>;

export async function insertIngestKey(db: Kysely<Tables>, row: IngestKeyRow): Promise<void> {
  await db.insertInto('ingest_keys').values(row).execute();
  await bumpIngestKeyVersion(db, row.tenant_id);
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
  const deleted = Number(result.numDeletedRows) > 0;
  if (deleted) await bumpIngestKeyVersion(db, tenantId);
  return deleted;
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

export async function saveIngestPolicy(
  db: Kysely<Tables>,
  tenantId: number,
  policy: { requireKey: boolean; at: number; by: string },
): Promise<void> {
  const values = { require_ingest_key: policy.requireKey ? 1 : 0, updated_at: policy.at, updated_by: policy.by };
  await db
    .insertInto('collector_ingest_policies')
    .values({ tenant_id: tenantId, ...values })
    .onConflict((oc) => oc.column('tenant_id').doUpdateSet(values))
    .execute();
  await bumpIngestKeyVersion(db, tenantId);
}

/**
 * Marks the tenant's keys or policy changed (after the change, in its transaction): collectors
 * on every node compare this version and reload the tenant's keys when it moved.
 */
async function bumpIngestKeyVersion(db: Kysely<Tables>, tenantId: number): Promise<void> {
  await db
    .insertInto('ingest_key_versions')
    .values({ tenant_id: tenantId, version: 1 })
    .onConflict((oc) =>
      oc.column('tenant_id').doUpdateSet((eb) => ({ version: eb('ingest_key_versions.version', '+', 1) })),
    )
    .execute();
}

/** The tenant's ingest-key version; 0 before its keys or policy ever changed. */
export async function readIngestKeyVersion(db: Kysely<Tables>, tenantId: number): Promise<number> {
  const row = await db
    .selectFrom('ingest_key_versions')
    .select('version')
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  return row?.version ?? 0;
}
