// Each webhook subscription chooses its body format: `sightline` (CloudEvents 1.0 around
// Sightline's own JSON, as every subscription had) or `ocsf` (OCSF findings). Adding a column
// with a default rewrites nothing on either database.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE webhook_subscriptions ADD COLUMN format TEXT NOT NULL DEFAULT 'sightline'`.execute(db);
}
