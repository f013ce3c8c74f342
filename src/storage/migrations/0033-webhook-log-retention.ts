// Retention of the webhook delivery log and event outbox (docs/webhooks.md): the purger finds a
// tenant's finished deliveries by creation time, and an event is deleted once no delivery refers
// to it, which needs deliveries by event (the foreign key's own check on each deleted event, too).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX webhook_deliveries_age ON webhook_deliveries (tenant_id, created_at)`.execute(db);
  await sql`CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id)`.execute(db);
}
