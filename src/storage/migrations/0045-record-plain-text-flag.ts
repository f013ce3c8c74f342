// telemetry_records.plain_text: true when the writer found that the record writes every string
// character and every number as itself (record-log/record-text-marks.ts), NULL when it is not
// sure or the record was written before; a field search's text prefilter then needs one
// substring per value for it instead of several. Adding a nullable column rewrites nothing, on
// either database. SQLite gets it too, left empty, so both schemas stay the same shape.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE telemetry_records ADD COLUMN plain_text BOOLEAN`.execute(db);
}
