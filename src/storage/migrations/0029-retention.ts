// Telemetry retention: each tenant's policy, legal hold and last usage measurement; the
// operator's allowed range (one row, defaults 30 days within 1 to 3650); the purger's lease.
// (SQLite databases are created with incremental auto_vacuum, see database.ts, so the purger
// can give deleted pages back a few at a time; older files switch with `sightline retention compact`.)
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  const bigint = kind === 'sqlite' ? sql`INTEGER` : sql`BIGINT`;
  await sql`CREATE TABLE tenant_retention (
    tenant_id ${bigint} PRIMARY KEY REFERENCES tenants (id),
    telemetry_days INTEGER,
    legal_hold INTEGER NOT NULL DEFAULT 0,
    legal_hold_reason TEXT,
    updated_at ${bigint} NOT NULL,
    updated_by TEXT NOT NULL,
    purged_records ${bigint} NOT NULL DEFAULT 0,
    last_purge_at ${bigint},
    stored_records ${bigint},
    stored_bytes ${bigint},
    oldest_received_at ${bigint},
    measured_at ${bigint}
  )`.execute(db);
  await sql`CREATE TABLE retention_limits (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    min_days INTEGER NOT NULL,
    max_days INTEGER NOT NULL,
    default_days INTEGER NOT NULL,
    updated_at ${bigint} NOT NULL,
    updated_by TEXT NOT NULL
  )`.execute(db);
  await sql`INSERT INTO retention_limits (id, min_days, max_days, default_days, updated_at, updated_by)
    VALUES (1, 1, 3650, 30, 0, 'default')`.execute(db);
  await sql`CREATE TABLE retention_leases (
    name TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    expires_at ${bigint} NOT NULL
  )`.execute(db);
}
