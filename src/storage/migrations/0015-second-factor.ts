// The optional second factor of people's sign-in: one TOTP secret per user (encrypted with a key
// of the deployment, since the server must read it back to check codes), the last time step a
// code was accepted at (so a code works once), and the one-use recovery codes, stored hashed.
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  const bigint = kind === 'sqlite' ? sql`INTEGER` : sql`BIGINT`;
  await sql`CREATE TABLE second_factors (
    user_id TEXT PRIMARY KEY REFERENCES users(id),
    tenant_id ${bigint} REFERENCES tenants(id),
    secret_encrypted TEXT NOT NULL,
    created_at ${bigint} NOT NULL,
    confirmed_at ${bigint},
    last_used_step ${bigint}
  )`.execute(db);
  await sql`CREATE INDEX second_factors_tenant ON second_factors (tenant_id, user_id)`.execute(db);
  await sql`CREATE TABLE recovery_codes (
    user_id TEXT NOT NULL REFERENCES users(id),
    tenant_id ${bigint} REFERENCES tenants(id),
    code_hash TEXT NOT NULL,
    created_at ${bigint} NOT NULL,
    used_at ${bigint},
    PRIMARY KEY (user_id, code_hash)
  )`.execute(db);
}
