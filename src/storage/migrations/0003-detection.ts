// Detection: the normalised endpoint-process and network-process tables, observations, the
// correlation state detection keeps beside its cursor, and the observation-write review
// requests. On PostgreSQL the record log gains the writing transaction's id, so the detection
// follower can read only what no still-running transaction can add to (see
// src/record-log/record-follower.ts).
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  const bigint = kind === 'sqlite' ? sql`INTEGER` : sql`BIGINT`;
  const serial = kind === 'sqlite' ? sql`INTEGER PRIMARY KEY AUTOINCREMENT` : sql`BIGSERIAL PRIMARY KEY`;

  if (kind === 'postgres') {
    // Existing rows all get the migration's own transaction id: they are committed once it is.
    await sql`ALTER TABLE telemetry_records ADD COLUMN tx_id xid8 NOT NULL DEFAULT pg_current_xact_id()`.execute(db);
    await sql`CREATE INDEX telemetry_records_tx_seq ON telemetry_records (tx_id, seq)`.execute(db);
  }
  // The follower's position as (transaction id, sequence) on PostgreSQL; SQLite uses seq alone.
  await sql`ALTER TABLE log_cursors ADD COLUMN tx_id TEXT`.execute(db);
  await sql`INSERT INTO log_cursors (name, seq, tx_id) VALUES ('detection', 0, '0')`.execute(db);

  // Rate limit and expected volume agreed when the platform approves a tenant's observation writes.
  await sql`ALTER TABLE tenants ADD COLUMN observation_write_limit_per_hour ${bigint}`.execute(db);

  await sql`CREATE TABLE endpoint_process_events (
    id ${serial},
    tenant_id ${bigint} NOT NULL REFERENCES tenants(id),
    record_seq ${bigint} NOT NULL UNIQUE,
    event_time ${bigint} NOT NULL,
    host TEXT,
    endpoint_id TEXT,
    user_name TEXT,
    process_name TEXT,
    pid ${bigint},
    parent_process_name TEXT,
    parent_pid ${bigint},
    executable_path TEXT,
    parent_executable_path TEXT,
    command_line TEXT,
    parent_command_line TEXT,
    source_format TEXT NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX endpoint_process_events_host ON endpoint_process_events (tenant_id, host, event_time)`.execute(
    db,
  );
  await sql`CREATE INDEX endpoint_process_events_time ON endpoint_process_events (tenant_id, event_time)`.execute(db);

  await sql`CREATE TABLE network_process_events (
    id ${serial},
    tenant_id ${bigint} NOT NULL REFERENCES tenants(id),
    record_seq ${bigint} NOT NULL UNIQUE,
    event_time ${bigint} NOT NULL,
    host TEXT,
    endpoint_id TEXT,
    user_name TEXT,
    process_name TEXT,
    pid ${bigint},
    executable_path TEXT,
    source_ip TEXT,
    source_port ${bigint},
    destination_ip TEXT,
    destination_port ${bigint},
    destination_hostname TEXT,
    protocol TEXT,
    direction TEXT,
    source_format TEXT NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX network_process_events_host ON network_process_events (tenant_id, host, event_time)`.execute(
    db,
  );
  await sql`CREATE INDEX network_process_events_time ON network_process_events (tenant_id, event_time)`.execute(db);

  await sql`CREATE TABLE observations (
    seq ${serial},
    id TEXT NOT NULL UNIQUE,
    tenant_id ${bigint} NOT NULL REFERENCES tenants(id),
    dedupe_key TEXT NOT NULL,
    source TEXT NOT NULL,
    rule_id TEXT NOT NULL,
    rule_title TEXT NOT NULL,
    rule_author TEXT,
    rule_type TEXT NOT NULL,
    level TEXT NOT NULL,
    techniques TEXT NOT NULL,
    tactics TEXT NOT NULL,
    tags TEXT NOT NULL,
    host TEXT,
    first_time ${bigint} NOT NULL,
    last_time ${bigint} NOT NULL,
    record_seqs TEXT NOT NULL,
    evidence TEXT NOT NULL,
    created_at ${bigint} NOT NULL,
    created_by TEXT
  )`.execute(db);
  await sql`CREATE UNIQUE INDEX observations_dedupe ON observations (tenant_id, dedupe_key)`.execute(db);
  await sql`CREATE INDEX observations_tenant_time ON observations (tenant_id, first_time, seq)`.execute(db);
  await sql`CREATE INDEX observations_tenant_rule ON observations (tenant_id, rule_id, seq)`.execute(db);
  await sql`CREATE INDEX observations_tenant_host ON observations (tenant_id, host, seq)`.execute(db);

  // One row per (tenant, correlation, group): the sliding-window state, JSON.
  await sql`CREATE TABLE correlation_state (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    updated_at ${bigint} NOT NULL
  )`.execute(db);

  // Records detection could not normalise or evaluate: kept (never silently passed over) so they
  // can be looked at and reprocessed; the record itself stays in the log.
  await sql`CREATE TABLE detection_failures (
    record_seq ${bigint} PRIMARY KEY,
    tenant_id ${bigint} NOT NULL REFERENCES tenants(id),
    error TEXT NOT NULL,
    failed_at ${bigint} NOT NULL
  )`.execute(db);

  await sql`CREATE TABLE observation_write_requests (
    id TEXT PRIMARY KEY,
    tenant_id ${bigint} NOT NULL REFERENCES tenants(id),
    status TEXT NOT NULL,
    service_impact TEXT NOT NULL,
    correlation TEXT NOT NULL,
    expected_volume_per_hour ${bigint} NOT NULL,
    requested_by TEXT NOT NULL,
    requested_at ${bigint} NOT NULL,
    decided_by TEXT,
    decided_at ${bigint},
    decision_note TEXT
  )`.execute(db);
  await sql`CREATE INDEX observation_write_requests_tenant ON observation_write_requests (tenant_id, requested_at)`.execute(
    db,
  );
  await sql`CREATE INDEX observation_write_requests_status ON observation_write_requests (status, requested_at)`.execute(
    db,
  );
}
