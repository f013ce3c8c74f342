// The endpoint tables lose their (tenant, host, time) and (tenant, time) indexes: every read
// finds rows by the record they came from (record_seq) or by device and time (the _device
// indexes), and detection, which writes a row for every process start and connection, paid
// for the two unused indexes in every commit, under the write lock ingest waits on.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['endpoint_process_events', 'network_process_events']) {
    await sql`DROP INDEX IF EXISTS ${sql.ref(`${table}_host`)}`.execute(db);
    await sql`DROP INDEX IF EXISTS ${sql.ref(`${table}_time`)}`.execute(db);
  }
}
