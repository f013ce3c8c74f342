// Device response actions (isolate, release): each request with its reason and outcome, and
// the device's current isolation state, which an EDR integration confirms.
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  const bigint = kind === 'sqlite' ? sql`INTEGER` : sql`BIGINT`;
  await sql`CREATE TABLE device_actions (
    id TEXT PRIMARY KEY,
    tenant_id ${bigint} NOT NULL REFERENCES tenants(id),
    device_id TEXT NOT NULL,
    case_id TEXT,
    action TEXT NOT NULL,
    status TEXT NOT NULL,
    reason TEXT NOT NULL,
    requested_at ${bigint} NOT NULL,
    requested_by TEXT NOT NULL,
    completed_at ${bigint},
    completed_by TEXT,
    outcome_detail TEXT
  )`.execute(db);
  await sql`CREATE INDEX device_actions_device ON device_actions (tenant_id, device_id, requested_at)`.execute(db);
  await sql`ALTER TABLE devices ADD COLUMN isolation_state TEXT`.execute(db);
}
