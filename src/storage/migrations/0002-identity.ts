// Identity: users (tenant members and platform operators), web sessions, API tokens, the audit
// log, and the tenant's approval for writing observations. Secrets are stored only as hashes:
// sessions and tokens by SHA-256 of their high-entropy value, passwords by scrypt.
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  const bigint = kind === 'sqlite' ? sql`INTEGER` : sql`BIGINT`;
  const serial = kind === 'sqlite' ? sql`INTEGER PRIMARY KEY AUTOINCREMENT` : sql`BIGSERIAL PRIMARY KEY`;

  // Epoch ms of the platform's approval, or null: writing observations needs it.
  await sql`ALTER TABLE tenants ADD COLUMN observation_write_approved_at ${bigint}`.execute(db);

  await sql`CREATE TABLE users (
    id TEXT PRIMARY KEY,
    tenant_id ${bigint} REFERENCES tenants(id),
    email TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    role TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    created_at ${bigint} NOT NULL,
    disabled_at ${bigint}
  )`.execute(db);
  await sql`CREATE INDEX users_tenant ON users (tenant_id, email)`.execute(db);

  await sql`CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id),
    created_at ${bigint} NOT NULL,
    last_seen_at ${bigint} NOT NULL,
    expires_at ${bigint} NOT NULL,
    ip TEXT NOT NULL,
    user_agent TEXT NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX sessions_user ON sessions (user_id)`.execute(db);

  await sql`CREATE TABLE api_tokens (
    id TEXT PRIMARY KEY,
    tenant_id ${bigint} NOT NULL REFERENCES tenants(id),
    name TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    token_hint TEXT NOT NULL,
    permissions TEXT NOT NULL,
    created_by_user_id TEXT REFERENCES users(id),
    created_by TEXT NOT NULL,
    created_at ${bigint} NOT NULL,
    expires_at ${bigint},
    deleted_at ${bigint},
    deleted_by TEXT,
    last_used_at ${bigint},
    last_used_ip TEXT
  )`.execute(db);
  await sql`CREATE INDEX api_tokens_tenant ON api_tokens (tenant_id, created_at)`.execute(db);

  await sql`CREATE TABLE audit_events (
    seq ${serial},
    id TEXT NOT NULL UNIQUE,
    tenant_id ${bigint} REFERENCES tenants(id),
    occurred_at ${bigint} NOT NULL,
    action TEXT NOT NULL,
    outcome TEXT NOT NULL,
    actor_type TEXT NOT NULL,
    actor_id TEXT,
    actor_label TEXT NOT NULL,
    ip TEXT,
    target_type TEXT,
    target_id TEXT,
    details TEXT NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX audit_events_tenant ON audit_events (tenant_id, seq)`.execute(db);
}
