// Upgrading a database whose emails were unique across the platform, on SQLite and PostgreSQL:
// the people, their sessions and what refers to them survive the change (SQLite rebuilds the
// table), foreign keys are enforced again afterwards, and the same email can then join a second
// tenant while staying one person within each.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { databaseTargets } from '../helpers/databases.js';
import { databaseAt } from '../helpers/upgrade.js';
import { migrateToLatest } from '../../src/storage/migrate.js';

const BEFORE = '0048-search-index-words';

for (const target of databaseTargets) {
  describe(`people become per tenant when ${target.kind} is upgraded`, { skip: target.skip }, () => {
    const upgraded = databaseAt(target, BEFORE);

    test('people, their sessions and tokens survive; the same email then joins a second tenant', async () => {
      const { database } = upgraded;
      const db = database.db;
      const now = Date.now();
      await sql`INSERT INTO tenants (code_name, name, created_at) VALUES ('acme', 'Acme', ${now}), ('globex', 'Globex', ${now})`.execute(
        db,
      );
      const tenants = await sql<{
        id: number;
        code_name: string;
      }>`SELECT id, code_name FROM tenants ORDER BY code_name`.execute(db);
      const [acme, globex] = tenants.rows.map((row) => row.id);
      await sql`INSERT INTO users (id, tenant_id, email, name, role, password_hash, created_at)
        VALUES ('usr_a', ${acme}, 'pat@example.com', 'Pat', 'admin', '!none', ${now}),
               ('usr_op', NULL, 'root@example.com', 'Root', 'operator', '!none', ${now})`.execute(db);
      await sql`INSERT INTO sessions (id, user_id, created_at, last_seen_at, expires_at, ip, user_agent)
        VALUES ('s1', 'usr_a', ${now}, ${now}, ${now + 1000}, '127.0.0.1', 'test')`.execute(db);

      await migrateToLatest(database);

      const people = await sql<{ id: string; email: string }>`SELECT id, email FROM users ORDER BY id`.execute(db);
      assert.deepEqual(
        people.rows.map((row) => [row.id, row.email]),
        [
          ['usr_a', 'pat@example.com'],
          ['usr_op', 'root@example.com'],
        ],
      );
      const sessions = await sql<{ user_id: string }>`SELECT user_id FROM sessions`.execute(db);
      assert.deepEqual(
        sessions.rows.map((row) => row.user_id),
        ['usr_a'],
      );

      await sql`INSERT INTO users (id, tenant_id, email, name, role, password_hash, created_at)
        VALUES ('usr_g', ${globex}, 'pat@example.com', 'Pat', 'viewer', '!none', ${now}),
               ('usr_g2', ${globex}, 'root@example.com', 'Root', 'viewer', '!none', ${now})`.execute(db);
      await assert.rejects(
        sql`INSERT INTO users (id, tenant_id, email, name, role, password_hash, created_at)
          VALUES ('usr_dup', ${acme}, 'pat@example.com', 'Pat', 'viewer', '!none', ${now})`.execute(db),
        'within a tenant an email is one person',
      );
      await assert.rejects(
        sql`INSERT INTO users (id, tenant_id, email, name, role, password_hash, created_at)
          VALUES ('usr_op2', NULL, 'root@example.com', 'Root', 'operator', '!none', ${now})`.execute(db),
        'among operators an email is one person',
      );
      await assert.rejects(
        sql`INSERT INTO sessions (id, user_id, created_at, last_seen_at, expires_at, ip, user_agent)
          VALUES ('s2', 'usr_nobody', ${now}, ${now}, ${now}, '127.0.0.1', 'test')`.execute(db),
        'a session of nobody is refused: foreign keys are enforced again',
      );
    });
  });
}
