// Saved telemetry searches: each person's named searches in a tenant, a name once per person.
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  const bigint = kind === 'sqlite' ? sql`INTEGER` : sql`BIGINT`;
  await sql`CREATE TABLE saved_searches (
    id TEXT PRIMARY KEY,
    tenant_id ${bigint} NOT NULL REFERENCES tenants(id),
    user_id TEXT NOT NULL REFERENCES users(id),
    name TEXT NOT NULL,
    query TEXT NOT NULL,
    view TEXT NOT NULL,
    created_at ${bigint} NOT NULL,
    updated_at ${bigint} NOT NULL
  )`.execute(db);
  await sql`CREATE UNIQUE INDEX saved_searches_owner_name ON saved_searches (tenant_id, user_id, name)`.execute(db);
}
