// Partner organisations: a managed security provider that works the cases of several tenants
// from one queue. A platform operator names a partner and the tenants it serves; the partner's
// API tokens act in each of those tenants with the permissions they were given. Small new
// tables, nothing existing is rewritten.
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  const bigint = kind === 'sqlite' ? sql`INTEGER` : sql`BIGINT`;
  await sql`CREATE TABLE partners (
    id TEXT PRIMARY KEY,
    code_name TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    created_at ${bigint} NOT NULL,
    created_by TEXT NOT NULL
  )`.execute(db);
  await sql`CREATE TABLE partner_tenants (
    partner_id TEXT NOT NULL REFERENCES partners (id),
    tenant_id ${bigint} NOT NULL REFERENCES tenants (id),
    added_at ${bigint} NOT NULL,
    added_by TEXT NOT NULL,
    PRIMARY KEY (partner_id, tenant_id)
  )`.execute(db);
  // Which partners serve a tenant: what its own pages and the audit of a change look up.
  await sql`CREATE INDEX partner_tenants_tenant ON partner_tenants (tenant_id)`.execute(db);
  await sql`CREATE TABLE partner_tokens (
    id TEXT PRIMARY KEY,
    partner_id TEXT NOT NULL REFERENCES partners (id),
    name TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    token_hint TEXT NOT NULL,
    permissions TEXT NOT NULL,
    created_by TEXT NOT NULL,
    created_at ${bigint} NOT NULL,
    expires_at ${bigint},
    deleted_at ${bigint},
    deleted_by TEXT,
    last_used_at ${bigint},
    last_used_ip TEXT
  )`.execute(db);
  await sql`CREATE INDEX partner_tokens_partner ON partner_tokens (partner_id, created_at, id)`.execute(db);
}
