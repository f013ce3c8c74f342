// Single sign-on trusts a provider only as far as its tenant proved: `sso_links` records which
// person a provider's subject signs in as (made when single sign-on created the person, or when
// a person who had a password or a second factor confirmed the link after signing in that way),
// and `sso_domains` the email domains a tenant proved it holds (a DNS TXT record, or an
// operator's approval). People single sign-on created before this migration are linked to their
// tenant's current issuer; the subject is filled in at their next sign-in.
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  const bigint = kind === 'sqlite' ? sql`INTEGER` : sql`BIGINT`;
  await sql`CREATE TABLE sso_links (
    user_id TEXT PRIMARY KEY REFERENCES users(id),
    tenant_id ${bigint} NOT NULL REFERENCES tenants(id),
    issuer TEXT NOT NULL,
    subject TEXT,
    linked_at ${bigint} NOT NULL,
    how TEXT NOT NULL
  )`.execute(db);
  await sql`CREATE TABLE sso_domains (
    tenant_id ${bigint} NOT NULL REFERENCES tenants(id),
    domain TEXT NOT NULL,
    verified_by TEXT NOT NULL,
    verified_at ${bigint} NOT NULL,
    approved_by TEXT,
    PRIMARY KEY (tenant_id, domain)
  )`.execute(db);
  await sql`INSERT INTO sso_links (user_id, tenant_id, issuer, subject, linked_at, how)
    SELECT u.id, u.tenant_id, c.issuer, NULL, u.created_at, 'created'
    FROM users u JOIN sso_configs c ON c.tenant_id = u.tenant_id
    WHERE u.id IN (
      SELECT target_id FROM audit_events
      WHERE action = 'user.created' AND actor_type = 'system' AND actor_label = 'single sign-on'
        AND target_type = 'user'
    )`.execute(db);
}
