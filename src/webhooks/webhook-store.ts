// SQL for webhook subscriptions, the event outbox and deliveries. Every query a tenant's
// request makes names the tenant; the dispatcher's claim is the one query across tenants (it
// serves them all), and what it claims carries the tenant on from there.
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type {
  Tables,
  WebhookDeliveriesTable,
  WebhookEventsTable,
  WebhookSubscriptionsTable,
} from '../storage/schema.js';
import type { RowLocks } from '../storage/row-locks.js';

type Db = Kysely<Tables> | Transaction<Tables>;
export type SubscriptionRow = Selectable<WebhookSubscriptionsTable>;
export type EventRow = Selectable<WebhookEventsTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;

export function insertSubscription(db: Db, row: SubscriptionRow): Promise<unknown> {
  return db.insertInto('webhook_subscriptions').values(row).execute();
}

export function findSubscription(db: Db, tenantId: number, id: string): Promise<SubscriptionRow | undefined> {
  return db
    .selectFrom('webhook_subscriptions')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Oldest first: a tenant has few (MAX_SUBSCRIPTIONS_PER_TENANT). */
export function listSubscriptions(db: Db, tenantId: number): Promise<SubscriptionRow[]> {
  return db
    .selectFrom('webhook_subscriptions')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function enabledSubscriptions(db: Db, tenantId: number): Promise<Pick<SubscriptionRow, 'id' | 'events'>[]> {
  return db
    .selectFrom('webhook_subscriptions')
    .select(['id', 'events'])
    .where('tenant_id', '=', tenantId)
    .where('enabled', '=', 1)
    .execute();
}

export async function countSubscriptions(db: Db, tenantId: number): Promise<number> {
  const row = await db
    .selectFrom('webhook_subscriptions')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('tenant_id', '=', tenantId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function updateSubscription(
  db: Db,
  tenantId: number,
  id: string,
  set: Partial<Omit<SubscriptionRow, 'id' | 'tenant_id'>>,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_subscriptions')
    .set(set)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deleteSubscription(db: Db, tenantId: number, id: string): Promise<boolean> {
  await db
    .deleteFrom('webhook_deliveries')
    .where('tenant_id', '=', tenantId)
    .where('subscription_id', '=', id)
    .execute();
  const result = await db
    .deleteFrom('webhook_subscriptions')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function insertEvents(db: Db, events: readonly EventRow[]): Promise<void> {
  if (events.length > 0)
    await db
      .insertInto('webhook_events')
      .values([...events])
      .execute();
}

export async function insertDeliveries(db: Db, deliveries: readonly DeliveryRow[]): Promise<void> {
  // Chunked well under both dialects' bound-parameter limits (17 columns a row).
  for (let i = 0; i < deliveries.length; i += 500) {
    await db
      .insertInto('webhook_deliveries')
      .values(deliveries.slice(i, i + 500))
      .execute();
  }
}

export function findEvent(db: Db, tenantId: number, id: string): Promise<EventRow | undefined> {
  return db
    .selectFrom('webhook_events')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export function findDelivery(db: Db, tenantId: number, id: string): Promise<DeliveryRow | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export type DeliveryWithType = DeliveryRow & { event_type: string };

/** Newest first; `before` is the (created_at, id) of the last row of the previous page. */
export function listDeliveries(
  db: Db,
  tenantId: number,
  subscriptionId: string,
  page: { limit: number; before?: { createdAt: number; id: string } },
): Promise<DeliveryWithType[]> {
  let query = db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
    .selectAll('d')
    .select('e.type as event_type')
    .where('d.tenant_id', '=', tenantId)
    .where('d.subscription_id', '=', subscriptionId);
  const before = page.before;
  if (before) {
    query = query.where((eb) =>
      eb.or([
        eb('d.created_at', '<', before.createdAt),
        eb.and([eb('d.created_at', '=', before.createdAt), eb('d.id', '<', before.id)]),
      ]),
    );
  }
  return query.orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(page.limit).execute();
}

/** A delivery as a dispatcher sends it: with its event, subscription and tenant. */
export interface ClaimedDelivery {
  delivery: DeliveryRow;
  event: EventRow;
  subscription: SubscriptionRow;
  codeName: string;
}

/**
 * Claims up to `limit` due deliveries of enabled subscriptions for `owner` until `leaseUntil`.
 * On PostgreSQL the candidates are locked with FOR UPDATE SKIP LOCKED, so dispatchers on other
 * nodes pass over them instead of waiting; SQLite has one writer at a time (BEGIN IMMEDIATE).
 * A lease that ran out (its dispatcher died) makes the delivery claimable again.
 */
/**
 * Whether any delivery may be due, by a plain read. On SQLite the claim takes the write lock,
 * and a server whose record writer commits all the time would block its event loop on that
 * lock every poll only to find nothing to send.
 */
export async function anyDue(db: Db, now: number): Promise<boolean> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export async function claimDue(
  trx: Db,
  locks: RowLocks,
  claim: { owner: string; now: number; leaseUntil: number; limit: number },
): Promise<ClaimedDelivery[]> {
  // Claimed rows other dispatchers hold are skipped, not waited for: each takes its own batch.
  const candidates = trx
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_subscriptions as s', 's.id', 'd.subscription_id')
    .select('d.id')
    .where('d.status', '=', 'pending')
    .where('d.next_attempt_at', '<=', claim.now)
    .where((eb) => eb.or([eb('d.lease_until', 'is', null), eb('d.lease_until', '<', claim.now)]))
    .where('s.enabled', '=', 1)
    .orderBy('d.next_attempt_at')
    .limit(claim.limit);
  const ids = (await locks.claim(candidates, 'd').execute()).map((row) => row.id);
  if (ids.length === 0) return [];
  await trx
    .updateTable('webhook_deliveries')
    .set({ lease_owner: claim.owner, lease_until: claim.leaseUntil })
    .where('id', 'in', ids)
    .execute();
  const rows = await trx
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
    .innerJoin('tenants as t', 't.id', 'd.tenant_id')
    .selectAll('d')
    .select([
      'e.type as e_type',
      'e.subject as e_subject',
      'e.data as e_data',
      'e.occurred_at as e_occurred_at',
      't.code_name as code_name',
    ])
    .where('d.id', 'in', ids)
    .execute();
  const subscriptions = new Map(
    (
      await trx
        .selectFrom('webhook_subscriptions')
        .selectAll()
        .where('id', 'in', [...new Set(rows.map((row) => row.subscription_id))])
        .execute()
    ).map((row) => [row.id, row]),
  );
  return rows.flatMap((row) => {
    const subscription = subscriptions.get(row.subscription_id);
    if (!subscription) return [];
    const { e_type, e_subject, e_data, e_occurred_at, code_name, ...delivery } = row;
    return [
      {
        delivery,
        event: {
          id: delivery.event_id,
          tenant_id: delivery.tenant_id,
          type: e_type,
          subject: e_subject,
          data: e_data,
          occurred_at: e_occurred_at,
        },
        subscription,
        codeName: code_name,
      },
    ];
  });
}

/** Records an attempt's outcome, only while `owner` still holds the lease; false if it lost it. */
export async function finishAttempt(
  db: Db,
  id: string,
  owner: string,
  set: Partial<Omit<DeliveryRow, 'id' | 'tenant_id'>>,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ ...set, lease_owner: null, lease_until: null })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Pending deliveries of a subscription turned on again get a fresh retry window, due now. */
export async function resumeDeliveries(db: Db, tenantId: number, subscriptionId: string, now: number, window: number) {
  await db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: now, retry_until: now + window })
    .where('tenant_id', '=', tenantId)
    .where('subscription_id', '=', subscriptionId)
    .where('status', '=', 'pending')
    .execute();
}

/** Counts of deliveries by status, across the deployment (for /metrics). */
export async function deliveryBacklog(db: Db): Promise<number> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select(sql<number | string>`count(*)`.as('n'))
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
