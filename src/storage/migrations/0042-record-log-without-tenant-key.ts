// PostgreSQL: the record log (telemetry_records and its day partitions) no longer has a foreign
// key to tenants. Its check ran once per inserted row — a trigger looking the tenant up and
// locking it — and measured at a third or more of each group's insert (89–199 ms of ~360 ms for
// ~4,400 records), while every writer already knows the tenant exists: the collector resolves
// it from the tenants table before it accepts a request, and the scale-out worker checks a
// batch's tenants once per batch (storage/postgres/stream-partition-apply.ts) so a message naming no tenant still
// becomes a dead letter. Nothing relies on the key otherwise: tenants are never deleted (no
// cascade runs from them), the retention purge deletes records rather than tenants, and a data
// move copies tenants before records. SQLite keeps its key: its writer does not pay per row.
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  if (kind !== 'postgres') return;
  // The parent's key and any a partition holds of its own (one attached with its key intact);
  // a partition's inherited copy goes with the parent's.
  const keys = await sql<{ table_name: string; name: string }>`
    SELECT c.conrelid::regclass::text AS table_name, c.conname AS name
    FROM pg_constraint c
    JOIN pg_partition_tree('telemetry_records') t ON t.relid = c.conrelid
    WHERE c.contype = 'f' AND c.confrelid = to_regclass('tenants') AND c.conparentid = 0`.execute(db);
  for (const key of keys.rows)
    await sql`ALTER TABLE ${sql.raw(key.table_name)} DROP CONSTRAINT ${sql.id(key.name)}`.execute(db);
}
