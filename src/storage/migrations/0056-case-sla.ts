// SLAs: per tenant and severity, the time to acknowledge a case (new → in progress) and to
// resolve it; on each case, when it was acknowledged and how long it waited on hold (the resolve
// clock pauses there), and when each clock was found breached (an event, once).
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  const bigint = kind === 'sqlite' ? sql`INTEGER` : sql`BIGINT`;
  await sql`CREATE TABLE sla_policies (
    tenant_id ${bigint} NOT NULL REFERENCES tenants (id),
    severity TEXT NOT NULL,
    acknowledge_s ${bigint} NOT NULL,
    resolve_s ${bigint} NOT NULL,
    updated_at ${bigint} NOT NULL,
    updated_by TEXT NOT NULL,
    PRIMARY KEY (tenant_id, severity)
  )`.execute(db);
  for (const column of ['acknowledged_at', 'held_since', 'acknowledge_breached_at', 'resolve_breached_at'])
    await sql`ALTER TABLE cases ADD COLUMN ${sql.raw(column)} ${bigint}`.execute(db);
  await sql`ALTER TABLE cases ADD COLUMN held_ms ${bigint} NOT NULL DEFAULT 0`.execute(db);
}
