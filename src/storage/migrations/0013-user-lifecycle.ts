// The lifecycle of people: a deleted user keeps their row (cases, comments and the audit log
// still name them) but can never sign in again; invitations and password resets are one-time
// codes stored only as SHA-256; the last sign-in is kept for the Users page.
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  const bigint = kind === 'sqlite' ? sql`INTEGER` : sql`BIGINT`;
  await sql`ALTER TABLE users ADD COLUMN deleted_at ${bigint}`.execute(db);
  await sql`ALTER TABLE users ADD COLUMN last_login_at ${bigint}`.execute(db);
  await sql`CREATE TABLE user_codes (
    code_hash TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id),
    purpose TEXT NOT NULL,
    created_at ${bigint} NOT NULL,
    expires_at ${bigint} NOT NULL,
    created_by TEXT NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX user_codes_user ON user_codes (user_id)`.execute(db);
}
