// telemetry_records.jsonb_ok: true when the writer found that PostgreSQL can surely read the
// record as jsonb (record-log/record-text-marks.ts), NULL when it is not sure or the record was
// written before; a field search then tests such a record's text itself. Adding a nullable
// column rewrites nothing, on either database. SQLite gets it too, left empty, so both schemas
// stay the same shape.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE telemetry_records ADD COLUMN jsonb_ok BOOLEAN`.execute(db);
}
