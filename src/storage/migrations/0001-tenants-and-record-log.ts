// The tenants table, the record log with its time index, the followers' cursors, and the
// full-text index the search indexer fills behind the log. SQLite: an FTS5 external-content
// table over the log. PostgreSQL: a table of tsvectors ('simple' configuration: no stemming,
// logs are not prose) with a GIN index.
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  const id = kind === 'sqlite' ? sql`INTEGER PRIMARY KEY AUTOINCREMENT` : sql`BIGSERIAL PRIMARY KEY`;
  const bigint = kind === 'sqlite' ? sql`INTEGER` : sql`BIGINT`;

  await sql`CREATE TABLE tenants (
    id ${id},
    code_name TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    created_at ${bigint} NOT NULL,
    settings TEXT NOT NULL DEFAULT '{}'
  )`.execute(db);

  await sql`CREATE TABLE telemetry_records (
    seq ${id},
    tenant_id ${bigint} NOT NULL REFERENCES tenants(id),
    received_at ${bigint} NOT NULL,
    event_time ${bigint} NOT NULL,
    record TEXT NOT NULL,
    meta TEXT
  )`.execute(db);
  await sql`CREATE INDEX telemetry_records_tenant_received ON telemetry_records (tenant_id, received_at, seq)`.execute(
    db,
  );

  // Each follower of the record log keeps the last sequence it has fully processed.
  await sql`CREATE TABLE log_cursors (name TEXT PRIMARY KEY, seq ${bigint} NOT NULL)`.execute(db);
  await sql`INSERT INTO log_cursors (name, seq) VALUES ('search_index', 0)`.execute(db);

  if (kind === 'sqlite') {
    await sql`CREATE VIRTUAL TABLE telemetry_fts USING fts5(
      record, content='telemetry_records', content_rowid='seq', tokenize='unicode61 remove_diacritics 2'
    )`.execute(db);
  } else {
    await sql`CREATE TABLE telemetry_fts (
      seq BIGINT PRIMARY KEY REFERENCES telemetry_records(seq),
      tenant_id BIGINT NOT NULL,
      tsv TSVECTOR NOT NULL
    )`.execute(db);
    await sql`CREATE INDEX telemetry_fts_tsv ON telemetry_fts USING GIN (tsv)`.execute(db);
  }
}
