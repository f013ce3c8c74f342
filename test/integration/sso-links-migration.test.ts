// Upgrading a database whose single sign-on provisioned people before links existed, on SQLite
// and PostgreSQL: the people single sign-on created (as the audit log recorded) are linked to
// their tenant's provider, so they keep signing in; members with a password of their own are
// not, and their next single sign-on asks them to confirm the link.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { databaseTargets } from '../helpers/databases.js';
import { databaseAt } from '../helpers/upgrade.js';
import { migrateToLatest } from '../../src/storage/migrate.js';

const BEFORE = '0049-people-per-tenant';

for (const target of databaseTargets) {
  describe(`single sign-on links when ${target.kind} is upgraded`, { skip: target.skip }, () => {
    const upgraded = databaseAt(target, BEFORE);

    test('people single sign-on created are linked to the current issuer; others are not', async () => {
      const { database } = upgraded;
      const db = database.db;
      const now = Date.now();
      await sql`INSERT INTO tenants (code_name, name, created_at) VALUES ('acme', 'Acme', ${now})`.execute(db);
      const acme = Number((await sql<{ id: number | string }>`SELECT id FROM tenants`.execute(db)).rows[0]!.id);
      await sql`INSERT INTO sso_configs (tenant_id, issuer, client_id, client_secret_sealed, allowed_email_domains,
          role_claim, role_mapping, default_role, enabled, created_at, updated_at)
        VALUES (${acme}, 'https://login.acme.example', 'c', 'v1.x', '["acme.example"]', 'groups', '{}', 'viewer', 1,
          ${now}, ${now})`.execute(db);
      await sql`INSERT INTO users (id, tenant_id, email, name, role, password_hash, created_at)
        VALUES ('usr_sso', ${acme}, 'ana@acme.example', 'Ana', 'viewer', 'scrypt$random', ${now}),
               ('usr_pw', ${acme}, 'bo@acme.example', 'Bo', 'admin', 'scrypt$chosen', ${now})`.execute(db);
      const audit = (id: string, target: string, label: string, type: string) =>
        sql`INSERT INTO audit_events (id, tenant_id, occurred_at, action, outcome, actor_type, actor_id, actor_label,
            ip, target_type, target_id, details)
          VALUES (${id}, ${acme}, ${now}, 'user.created', 'success', ${type}, NULL, ${label}, NULL, 'user', ${target},
            '{}')`.execute(db);
      await audit('aud_1', 'usr_sso', 'single sign-on', 'system');
      await audit('aud_2', 'usr_pw', 'cli', 'cli');

      await migrateToLatest(database);

      const links = await sql<{
        user_id: string;
        issuer: string;
        subject: string | null;
        how: string;
      }>`SELECT user_id, issuer, subject, how FROM sso_links`.execute(db);
      assert.deepEqual(
        links.rows.map((row) => [row.user_id, row.issuer, row.subject, row.how]),
        [['usr_sso', 'https://login.acme.example', null, 'created']],
      );
    });
  });
}
