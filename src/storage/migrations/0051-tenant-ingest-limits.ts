// Per-tenant ingest limits of the collector (records and decoded bytes per second, each with a
// burst), off for a tenant without a row; and the collector nodes that share them: each node
// refreshes its row every few seconds, and enforces each limit's rate divided by the nodes seen
// recently, so the tenant's combined rate stays near the limit however many nodes take requests.
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

export async function up(db: Kysely<unknown>, _kind: DatabaseKind): Promise<void> {
  await sql`CREATE TABLE tenant_ingest_limits (
    tenant_id BIGINT PRIMARY KEY REFERENCES tenants (id),
    records_per_second BIGINT,
    records_burst BIGINT,
    bytes_per_second BIGINT,
    bytes_burst BIGINT,
    updated_at BIGINT NOT NULL,
    updated_by TEXT NOT NULL
  )`.execute(db);
  await sql`CREATE TABLE collector_nodes (
    node_id TEXT PRIMARY KEY,
    last_seen BIGINT NOT NULL
  )`.execute(db);
}
