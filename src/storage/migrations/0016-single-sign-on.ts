// Single sign-on with OpenID Connect: each tenant may name one provider. The client secret is
// stored sealed (AES-256-GCM under a key of the deployment), never in clear.
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  const bigint = kind === 'sqlite' ? sql`INTEGER` : sql`BIGINT`;
  await sql`CREATE TABLE sso_configs (
    tenant_id ${bigint} PRIMARY KEY REFERENCES tenants(id),
    issuer TEXT NOT NULL,
    client_id TEXT NOT NULL,
    client_secret_sealed TEXT NOT NULL,
    allowed_email_domains TEXT NOT NULL,
    role_claim TEXT NOT NULL,
    role_mapping TEXT NOT NULL,
    default_role TEXT,
    enabled INTEGER NOT NULL,
    created_at ${bigint} NOT NULL,
    updated_at ${bigint} NOT NULL
  )`.execute(db);
}
