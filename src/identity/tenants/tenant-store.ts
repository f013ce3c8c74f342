// SQL for the tenants table. The tenant registry is the one table not scoped by a tenant: it is
// the list of tenants itself.
import type { Kysely } from 'kysely';
import type { Tables } from '../../storage/schema.js';

export interface TenantRow {
  id: number;
  code_name: string;
  name: string;
  created_at: number;
  settings: string;
  observation_write_approved_at: number | null;
  /** The approved volume of observation writes per hour; null: not limited beyond approval. */
  observation_write_limit_per_hour: number | null;
  /** 1: AI summaries available; 0: the tenant opted out. */
  ai_summaries_enabled: number;
  /** Operator override of the deployment's summary provider. */
  summary_provider: string | null;
}

const columns = [
  'id',
  'code_name',
  'name',
  'created_at',
  'settings',
  'observation_write_approved_at',
  'observation_write_limit_per_hour',
  'ai_summaries_enabled',
  'summary_provider',
] as const;

export function findTenantById(db: Kysely<Tables>, id: number): Promise<TenantRow | undefined> {
  return db.selectFrom('tenants').select(columns).where('id', '=', id).executeTakeFirst();
}

export function updateTenant(
  db: Kysely<Tables>,
  id: number,
  changes: Partial<
    Pick<TenantRow, 'name' | 'settings' | 'observation_write_approved_at' | 'ai_summaries_enabled' | 'summary_provider'>
  >,
): Promise<unknown> {
  return db.updateTable('tenants').set(changes).where('id', '=', id).execute();
}

export function findTenantByCodeName(db: Kysely<Tables>, codeName: string): Promise<TenantRow | undefined> {
  return db.selectFrom('tenants').select(columns).where('code_name', '=', codeName).executeTakeFirst();
}

export function listTenants(db: Kysely<Tables>): Promise<TenantRow[]> {
  return db.selectFrom('tenants').select(columns).orderBy('code_name').execute();
}

export async function countTenants(db: Kysely<Tables>): Promise<number> {
  const row = await db
    .selectFrom('tenants')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  // count(*) is int8 on PostgreSQL, which storage/database.ts parses to a number.
  return row.n;
}

/** Inserts a tenant; returns undefined when the code name is taken. */
export async function insertTenant(
  db: Kysely<Tables>,
  tenant: { codeName: string; name: string; createdAt: number },
): Promise<TenantRow | undefined> {
  return db
    .insertInto('tenants')
    .values({ code_name: tenant.codeName, name: tenant.name, created_at: tenant.createdAt, settings: '{}' })
    .onConflict((oc) => oc.column('code_name').doNothing())
    .returning(columns)
    .executeTakeFirst();
}
