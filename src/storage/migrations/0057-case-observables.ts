// Case observables: the indicators each case's evidence names (addresses, domains, URLs, hashes,
// accounts, hosts, processes, command lines) and those analysts add, one row per case and
// normalised value, so that a case lists them and other cases holding the same value are found
// from one index (pivots, similar cases). A new table: nothing existing is rewritten; cases
// opened before it start with none, and gain them from the observations that join them after.
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  const bigint = kind === 'sqlite' ? sql`INTEGER` : sql`BIGINT`;
  const serial = kind === 'sqlite' ? sql`INTEGER PRIMARY KEY AUTOINCREMENT` : sql`BIGSERIAL PRIMARY KEY`;
  await sql`CREATE TABLE case_observables (
    seq ${serial},
    id TEXT NOT NULL UNIQUE,
    tenant_id ${bigint} NOT NULL REFERENCES tenants(id),
    case_id TEXT NOT NULL REFERENCES cases(id),
    type TEXT NOT NULL,
    value TEXT NOT NULL,
    tags TEXT NOT NULL,
    source TEXT NOT NULL,
    observation_id TEXT,
    first_seen ${bigint} NOT NULL,
    created_at ${bigint} NOT NULL,
    created_by TEXT,
    removed_at ${bigint},
    removed_by TEXT
  )`.execute(db);
  // One row per value and case (extraction adds what is new, ignoring the rest); it also lists a case's.
  await sql`CREATE UNIQUE INDEX case_observables_case ON case_observables (tenant_id, case_id, type, value)`.execute(
    db,
  );
  // The other cases holding a value (pivots, similar cases).
  await sql`CREATE INDEX case_observables_value ON case_observables (tenant_id, type, value, case_id)`.execute(db);
}
