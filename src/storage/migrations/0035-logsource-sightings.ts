// Which logsources each tenant's telemetry produced and when last: ATT&CK coverage calls a rule
// live when its logsource was seen recently. One row per (tenant, product, category, service);
// an absent part is '' so the key can be a primary key on both dialects.
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  const bigint = kind === 'sqlite' ? sql`INTEGER` : sql`BIGINT`;
  await sql`CREATE TABLE logsource_sightings (
    tenant_id ${bigint} NOT NULL REFERENCES tenants(id),
    product TEXT NOT NULL,
    category TEXT NOT NULL,
    service TEXT NOT NULL,
    first_seen ${bigint} NOT NULL,
    last_seen ${bigint} NOT NULL,
    PRIMARY KEY (tenant_id, product, category, service)
  )`.execute(db);
}
