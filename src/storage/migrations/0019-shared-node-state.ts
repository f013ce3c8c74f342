// State that several API nodes on one PostgreSQL database must share, where the embedded
// deployment keeps it in its one process's memory: the failed-attempt limits (per client
// address and per account), and a per-tenant version of the ingest keys that tells collectors
// on other nodes to reload them. Plus the progress of a data move into this database
// (`sightline data migrate`), kept beside the rows it copied so a rerun resumes.
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  const bigint = kind === 'sqlite' ? sql`INTEGER` : sql`BIGINT`;
  const serial = kind === 'sqlite' ? sql`INTEGER PRIMARY KEY AUTOINCREMENT` : sql`BIGSERIAL PRIMARY KEY`;
  await sql`CREATE TABLE auth_failures (
    id ${serial},
    client_key TEXT NOT NULL,
    at ${bigint} NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX auth_failures_client ON auth_failures (client_key, at)`.execute(db);
  await sql`CREATE INDEX auth_failures_at ON auth_failures (at)`.execute(db);
  await sql`CREATE TABLE account_throttle (
    account_key TEXT PRIMARY KEY,
    failures INTEGER NOT NULL,
    last_at ${bigint} NOT NULL,
    awaiting_code INTEGER NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX account_throttle_last ON account_throttle (last_at)`.execute(db);
  await sql`CREATE TABLE ingest_key_versions (
    tenant_id ${bigint} PRIMARY KEY REFERENCES tenants (id),
    version ${bigint} NOT NULL
  )`.execute(db);
  await sql`CREATE TABLE data_move_progress (
    table_name TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    last_rowid ${bigint} NOT NULL,
    copied ${bigint} NOT NULL,
    done INTEGER NOT NULL
  )`.execute(db);
}
