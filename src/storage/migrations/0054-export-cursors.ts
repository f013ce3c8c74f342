// Export to object storage: per destination, the hour being written and the last tenant whose
// files for it are complete, so a restarted exporter carries on where it stopped; and the
// observations of a tenant by creation time, which is how each hour's findings are read.
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  const bigint = kind === 'sqlite' ? sql`INTEGER` : sql`BIGINT`;
  await sql`CREATE TABLE export_cursors (
    destination TEXT PRIMARY KEY,
    hour ${bigint} NOT NULL,
    after_tenant_id ${bigint} NOT NULL,
    exported_records ${bigint} NOT NULL DEFAULT 0,
    exported_findings ${bigint} NOT NULL DEFAULT 0,
    updated_at ${bigint} NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX observations_tenant_created ON observations (tenant_id, created_at, seq)`.execute(db);
}
