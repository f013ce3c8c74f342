// Facts about the running deployment that other processes on the same database need, such as
// the public URL the server last started with (the CLI prints collector addresses with it).
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

export async function up(db: Kysely<unknown>, _kind: DatabaseKind): Promise<void> {
  await sql`CREATE TABLE instance_settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    updated_at BIGINT NOT NULL
  )`.execute(db);
}
