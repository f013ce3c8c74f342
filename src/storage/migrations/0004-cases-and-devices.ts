// Cases and devices: the device inventory (with each address's location as looked up when first
// seen), cases with their per-tenant numbers, the observations, devices, techniques and tags
// they hold (one table each, so that filters are index lookups), comments and the history of
// every change.
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  const bigint = kind === 'sqlite' ? sql`INTEGER` : sql`BIGINT`;
  const serial = kind === 'sqlite' ? sql`INTEGER PRIMARY KEY AUTOINCREMENT` : sql`BIGSERIAL PRIMARY KEY`;

  await sql`CREATE TABLE devices (
    seq ${serial},
    id TEXT NOT NULL UNIQUE,
    tenant_id ${bigint} NOT NULL REFERENCES tenants(id),
    host_key TEXT NOT NULL,
    host_name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    criticality TEXT NOT NULL DEFAULT 'medium',
    last_user TEXT,
    endpoint_id TEXT,
    os TEXT,
    kubernetes_namespace TEXT,
    first_seen ${bigint} NOT NULL,
    last_seen ${bigint} NOT NULL,
    updated_at ${bigint} NOT NULL
  )`.execute(db);
  await sql`CREATE UNIQUE INDEX devices_tenant_host ON devices (tenant_id, host_key)`.execute(db);
  await sql`CREATE INDEX devices_tenant_seen ON devices (tenant_id, last_seen, seq)`.execute(db);

  await sql`CREATE TABLE device_addresses (
    device_id TEXT NOT NULL REFERENCES devices(id),
    ip TEXT NOT NULL,
    tenant_id ${bigint} NOT NULL REFERENCES tenants(id),
    scope TEXT NOT NULL,
    country_code TEXT,
    country TEXT,
    city TEXT,
    first_seen ${bigint} NOT NULL,
    last_seen ${bigint} NOT NULL,
    PRIMARY KEY (device_id, ip)
  )`.execute(db);
  await sql`CREATE INDEX device_addresses_tenant_ip ON device_addresses (tenant_id, ip)`.execute(db);

  // Normalised rows name their device, so a device's processes are found whatever the spelling
  // of its host name in each record.
  await sql`ALTER TABLE endpoint_process_events ADD COLUMN device_id TEXT`.execute(db);
  await sql`CREATE INDEX endpoint_process_events_device ON endpoint_process_events (tenant_id, device_id, event_time)`.execute(
    db,
  );
  await sql`ALTER TABLE network_process_events ADD COLUMN device_id TEXT`.execute(db);
  await sql`CREATE INDEX network_process_events_device ON network_process_events (tenant_id, device_id, event_time)`.execute(
    db,
  );

  // The last case number given out per tenant: people say "case 42", not an opaque id.
  await sql`CREATE TABLE case_counters (
    tenant_id ${bigint} PRIMARY KEY REFERENCES tenants(id),
    last_number ${bigint} NOT NULL
  )`.execute(db);

  await sql`CREATE TABLE cases (
    seq ${serial},
    id TEXT NOT NULL UNIQUE,
    tenant_id ${bigint} NOT NULL REFERENCES tenants(id),
    number ${bigint} NOT NULL,
    title TEXT NOT NULL,
    description TEXT NOT NULL,
    score ${bigint} NOT NULL,
    severity TEXT NOT NULL,
    severity_manual ${bigint} NOT NULL DEFAULT 0,
    status TEXT NOT NULL,
    resolution TEXT,
    closing_comment TEXT,
    assignee_id TEXT,
    group_key TEXT NOT NULL,
    observation_count ${bigint} NOT NULL,
    max_level TEXT NOT NULL,
    rules TEXT NOT NULL,
    techniques TEXT NOT NULL,
    tactics TEXT NOT NULL,
    tags TEXT NOT NULL,
    search_text TEXT NOT NULL,
    merged_into TEXT,
    version ${bigint} NOT NULL,
    created_at ${bigint} NOT NULL,
    updated_at ${bigint} NOT NULL,
    first_observation_at ${bigint} NOT NULL,
    last_observation_at ${bigint} NOT NULL,
    closed_at ${bigint}
  )`.execute(db);
  await sql`CREATE UNIQUE INDEX cases_tenant_number ON cases (tenant_id, number)`.execute(db);
  await sql`CREATE INDEX cases_tenant_created ON cases (tenant_id, created_at, seq)`.execute(db);
  await sql`CREATE INDEX cases_tenant_updated ON cases (tenant_id, updated_at, seq)`.execute(db);
  await sql`CREATE INDEX cases_tenant_score ON cases (tenant_id, score, seq)`.execute(db);
  await sql`CREATE INDEX cases_tenant_status ON cases (tenant_id, status, created_at, seq)`.execute(db);
  await sql`CREATE INDEX cases_tenant_assignee ON cases (tenant_id, assignee_id, created_at, seq)`.execute(db);
  await sql`CREATE INDEX cases_tenant_group ON cases (tenant_id, group_key, last_observation_at)`.execute(db);
  await sql`CREATE INDEX cases_tenant_severity ON cases (tenant_id, severity, score)`.execute(db);

  // An observation belongs to one case at a time; a merge moves it.
  await sql`CREATE TABLE case_observations (
    observation_id TEXT PRIMARY KEY,
    case_id TEXT NOT NULL REFERENCES cases(id),
    tenant_id ${bigint} NOT NULL REFERENCES tenants(id),
    added_at ${bigint} NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX case_observations_case ON case_observations (case_id, added_at)`.execute(db);

  await sql`CREATE TABLE case_devices (
    case_id TEXT NOT NULL REFERENCES cases(id),
    device_id TEXT NOT NULL REFERENCES devices(id),
    tenant_id ${bigint} NOT NULL REFERENCES tenants(id),
    PRIMARY KEY (case_id, device_id)
  )`.execute(db);
  await sql`CREATE INDEX case_devices_device ON case_devices (tenant_id, device_id)`.execute(db);
  // A page of cases' devices (presenters): without it SQLite reads every device link of the tenant.
  await sql`CREATE INDEX case_devices_case ON case_devices (tenant_id, case_id)`.execute(db);

  await sql`CREATE TABLE case_techniques (
    case_id TEXT NOT NULL REFERENCES cases(id),
    technique TEXT NOT NULL,
    tenant_id ${bigint} NOT NULL REFERENCES tenants(id),
    PRIMARY KEY (case_id, technique)
  )`.execute(db);
  // Covering: the technique filter is answered from the index alone.
  await sql`CREATE INDEX case_techniques_technique ON case_techniques (tenant_id, technique, case_id)`.execute(db);

  await sql`CREATE TABLE case_tags (
    case_id TEXT NOT NULL REFERENCES cases(id),
    tag TEXT NOT NULL,
    tenant_id ${bigint} NOT NULL REFERENCES tenants(id),
    PRIMARY KEY (case_id, tag)
  )`.execute(db);
  await sql`CREATE INDEX case_tags_tag ON case_tags (tenant_id, tag, case_id)`.execute(db);

  await sql`CREATE TABLE case_comments (
    seq ${serial},
    id TEXT NOT NULL UNIQUE,
    case_id TEXT NOT NULL REFERENCES cases(id),
    tenant_id ${bigint} NOT NULL REFERENCES tenants(id),
    author_type TEXT NOT NULL,
    author_id TEXT NOT NULL,
    author_label TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at ${bigint} NOT NULL,
    updated_at ${bigint} NOT NULL,
    deleted_at ${bigint}
  )`.execute(db);
  await sql`CREATE INDEX case_comments_case ON case_comments (case_id, seq)`.execute(db);

  // Who changed what and when: one row per change, never updated or deleted.
  await sql`CREATE TABLE case_history (
    seq ${serial},
    case_id TEXT NOT NULL REFERENCES cases(id),
    tenant_id ${bigint} NOT NULL REFERENCES tenants(id),
    at ${bigint} NOT NULL,
    actor_type TEXT NOT NULL,
    actor_id TEXT,
    actor_label TEXT NOT NULL,
    action TEXT NOT NULL,
    changes TEXT NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX case_history_case ON case_history (case_id, seq)`.execute(db);
}
