// A record-log follower's position on PostgreSQL becomes a snapshot: the records read next are
// those of transactions it could not see that a later snapshot can (telemetry/snapshot-window.ts).
// Reading only below the oldest running transaction, as before, let any transaction held open
// anywhere on the server stop detection. `seen` and `up_to` hold pg_snapshot text; an existing
// position (seq, tx_id) keeps working as "sees every transaction below tx_id" plus the key.
// SQLite gets the columns too, left empty, so both schemas stay the same shape.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE log_cursors ADD COLUMN seen TEXT`.execute(db);
  await sql`ALTER TABLE log_cursors ADD COLUMN up_to TEXT`.execute(db);
}
