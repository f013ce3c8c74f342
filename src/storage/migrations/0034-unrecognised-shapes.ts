// Records no parser recognised, per tenant and source shape (their sorted top-level keys): how
// many, first and last receive time, and the newest one as a redacted, truncated sample.
// Settings › Collector shows them, so a customer sees when a forwarder sends something new.
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  const bigint = kind === 'sqlite' ? sql`INTEGER` : sql`BIGINT`;
  await sql`CREATE TABLE unrecognised_shapes (
    tenant_id ${bigint} NOT NULL REFERENCES tenants(id),
    shape TEXT NOT NULL,
    keys TEXT NOT NULL,
    records ${bigint} NOT NULL,
    first_seen_at ${bigint} NOT NULL,
    last_seen_at ${bigint} NOT NULL,
    sample TEXT NOT NULL,
    PRIMARY KEY (tenant_id, shape)
  )`.execute(db);
}
