// Collector ingest keys: per-tenant credentials forwarders send to POST /log_sink, kept apart
// from API tokens (they open the collector only). Only each key's SHA-256 is stored. Whether a
// tenant's collector requires a key is the tenant's policy, off until the tenant turns it on.
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

export async function up(db: Kysely<unknown>, _kind: DatabaseKind): Promise<void> {
  await sql`CREATE TABLE ingest_keys (
    id TEXT PRIMARY KEY,
    tenant_id BIGINT NOT NULL REFERENCES tenants (id),
    name TEXT NOT NULL,
    key_hash TEXT NOT NULL UNIQUE,
    key_prefix TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    created_by TEXT NOT NULL,
    expires_at BIGINT,
    last_used_at BIGINT
  )`.execute(db);
  await sql`CREATE INDEX ingest_keys_tenant ON ingest_keys (tenant_id, created_at)`.execute(db);
  await sql`CREATE TABLE collector_ingest_policies (
    tenant_id BIGINT PRIMARY KEY REFERENCES tenants (id),
    require_ingest_key INTEGER NOT NULL,
    updated_at BIGINT NOT NULL,
    updated_by TEXT NOT NULL
  )`.execute(db);
}
