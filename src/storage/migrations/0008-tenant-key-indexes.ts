// Tenant-first indexes on the keys that pages of rows are fetched by: a case page's devices and
// their addresses, the cases' summaries, the cases a merge locks. The server never runs ANALYZE,
// and without statistics SQLite takes `tenant_id = ?` for a better filter than an IN list of a
// few keys, so it read every index entry of the tenant (all its devices, addresses, summaries
// or cases) to find a page's rows. With the tenant and the key in one index, both are equality
// lookups and the plan cannot be misread. SQLite, 20k cases, 2,000 devices: a case page's
// devices ~1.2 → ~0.3 ms, their addresses ~1.5 → ~0.3 ms, its summaries (5,000 stored)
// ~2.3 → ~0.2 ms; locking 20 cases for a merge ~47 → ~0.2 ms (it read every case). The keys
// are unique on their own already; the indexes are unique too, the form a table sharded by
// tenant_id (Citus) needs.
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

export async function up(db: Kysely<unknown>, _kind: DatabaseKind): Promise<void> {
  await sql`CREATE UNIQUE INDEX devices_tenant_id ON devices (tenant_id, id)`.execute(db);
  // Without last_seen, which every sighting rewrites: the read sorts a page's few addresses itself.
  await sql`CREATE INDEX device_addresses_tenant_device ON device_addresses (tenant_id, device_id)`.execute(db);
  await sql`CREATE UNIQUE INDEX case_summaries_tenant_case ON case_summaries (tenant_id, case_id)`.execute(db);
  await sql`CREATE UNIQUE INDEX cases_tenant_id ON cases (tenant_id, id)`.execute(db);
}
