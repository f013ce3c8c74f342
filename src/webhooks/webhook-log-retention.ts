// Retention of the delivery log and the event outbox (docs/webhooks.md): finished deliveries
// (delivered or failed) created before the cutoff are deleted, then events that occurred before
// it and that no delivery refers to any more (theirs purged, or their subscription deleted).
// Pending deliveries and their events stay, however old. In batches, each one statement; every
// query names the tenant.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Tables } from '../storage/schema.js';

type Db = Kysely<Tables> | Transaction<Tables>;

/** Deletes up to `limit` of the tenant's finished deliveries created before `cutoff`; how many. */
export async function purgeFinishedDeliveries(
  db: Db,
  tenantId: number,
  cutoff: number,
  limit: number,
): Promise<number> {
  const result = await db
    .deleteFrom('webhook_deliveries')
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('tenant_id', '=', tenantId)
        .where('created_at', '<', cutoff)
        .where('status', 'in', ['delivered', 'failed'])
        .limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Deletes up to `limit` of the tenant's events before `cutoff` that no delivery refers to; how many. */
export async function purgeUnreferencedEvents(
  db: Db,
  tenantId: number,
  cutoff: number,
  limit: number,
): Promise<number> {
  const result = await db
    .deleteFrom('webhook_events')
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('webhook_events as e')
        .select('e.id')
        .where('e.tenant_id', '=', tenantId)
        .where('e.occurred_at', '<', cutoff)
        .where((inner) =>
          inner.not(
            inner.exists(
              inner
                .selectFrom('webhook_deliveries as d')
                .select(sql<number>`1`.as('one'))
                .whereRef('d.event_id', '=', 'e.id'),
            ),
          ),
        )
        .limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
