// The scale-out record log (docs/scale.md): per partition of the JetStream stream,
// the last stream sequence applied to the database and the lease epoch of the worker allowed to
// move it (a former owner's write is fenced out), and the workers currently alive.
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  const bigint = kind === 'sqlite' ? sql`INTEGER` : sql`BIGINT`;
  await sql`CREATE TABLE log_partitions (
    stream TEXT NOT NULL,
    partition INTEGER NOT NULL,
    applied_seq ${bigint} NOT NULL,
    owner_epoch ${bigint} NOT NULL,
    owner TEXT,
    updated_at ${bigint} NOT NULL,
    PRIMARY KEY (stream, partition)
  )`.execute(db);
  await sql`CREATE TABLE log_workers (
    stream TEXT NOT NULL,
    id TEXT NOT NULL,
    seen_at ${bigint} NOT NULL,
    PRIMARY KEY (stream, id)
  )`.execute(db);
}
