// A person's identity belongs to their tenant: the same email may be a member of several
// tenants (and a platform operator), each account with its own password, role and second
// factor. Emails stay unique within a tenant, and among operators. SQLite cannot drop a column's
// UNIQUE constraint, so there the table is rebuilt as its documented procedure does (foreign
// keys off, copy, swap, check).
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  if (kind === 'sqlite') await rebuildSqliteUsers(db);
  else await dropPostgresEmailUnique(db);
  await sql`DROP INDEX IF EXISTS users_tenant`.execute(db);
  await sql`CREATE UNIQUE INDEX users_tenant_email ON users (tenant_id, email)`.execute(db);
  await sql`CREATE UNIQUE INDEX users_operator_email ON users (email) WHERE tenant_id IS NULL`.execute(db);
  // Sign-in starts from an email alone and finds every account that holds it.
  await sql`CREATE INDEX users_email ON users (email)`.execute(db);
}

async function dropPostgresEmailUnique(db: Kysely<unknown>): Promise<void> {
  const found = await sql<{ name: string }>`
    SELECT c.conname AS name FROM pg_constraint c
    JOIN pg_class t ON t.oid = c.conrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE t.relname = 'users' AND n.nspname = current_schema() AND c.contype = 'u'`.execute(db);
  for (const { name } of found.rows) await sql`ALTER TABLE users DROP CONSTRAINT ${sql.id(name)}`.execute(db);
}

async function rebuildSqliteUsers(db: Kysely<unknown>): Promise<void> {
  const table = await sql<{
    sql: string;
  }>`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'users'`.execute(db);
  const definition = table.rows[0]?.sql ?? '';
  const withoutUnique = definition.replace(/email TEXT NOT NULL UNIQUE/, 'email TEXT NOT NULL');
  if (withoutUnique === definition) throw new Error('users.email is not declared as migration 0002 made it');
  await sql`PRAGMA foreign_keys = OFF`.execute(db);
  try {
    await sql.raw(withoutUnique.replace(/^CREATE TABLE users/, 'CREATE TABLE users_rebuilt')).execute(db);
    await sql`INSERT INTO users_rebuilt SELECT * FROM users`.execute(db);
    await sql`DROP TABLE users`.execute(db);
    await sql`ALTER TABLE users_rebuilt RENAME TO users`.execute(db);
    const broken = await sql`PRAGMA foreign_key_check`.execute(db);
    if (broken.rows.length > 0) throw new Error(`rebuilding users broke ${broken.rows.length} references`);
  } finally {
    await sql`PRAGMA foreign_keys = ON`.execute(db);
  }
}
