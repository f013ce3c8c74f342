// The scale-out record log's dead letters (docs/scale.md, Failure behaviour): a
// message a worker cannot apply (it does not decode, or the database refuses its data) is set
// aside here with where it came from and why, and its partition moves on past it.
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  const bigint = kind === 'sqlite' ? sql`INTEGER` : sql`BIGINT`;
  const id = kind === 'sqlite' ? sql`INTEGER PRIMARY KEY AUTOINCREMENT` : sql`BIGSERIAL PRIMARY KEY`;
  await sql`CREATE TABLE log_dead_letters (
    id ${id},
    stream TEXT NOT NULL,
    partition INTEGER NOT NULL,
    stream_seq ${bigint} NOT NULL,
    tenant_id ${bigint},
    reason TEXT NOT NULL,
    excerpt TEXT NOT NULL,
    bytes ${bigint} NOT NULL,
    created_at ${bigint} NOT NULL
  )`.execute(db);
  await sql`CREATE UNIQUE INDEX log_dead_letters_position ON log_dead_letters (stream, partition, stream_seq)`.execute(
    db,
  );
}
