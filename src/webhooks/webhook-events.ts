// The outbound events and the one hook every feature emits them through. `emitEvents` runs
// inside the transaction of the change it reports: it writes the event to the outbox and one
// delivery per enabled subscription of the tenant that wants it, so an event exists exactly
// when its change committed, and a restart loses none. Tenants without a matching
// subscription cost one indexed read and write nothing. Queued deliveries wake the dispatcher
// once they commit (outbox-wake.ts).
import { RawJson, stringifyWithRawJson } from '../core/exact-json.js';
import { newId } from '../core/ids.js';
import type { Db } from '../storage/database.js';
import {
  enabledSubscriptions,
  insertDeliveries,
  insertEvents,
  type DeliveryRow,
  type EventRow,
} from './webhook-store.js';
import { announceQueued } from './outbox-wake.js';

export const eventTypes = [
  'case.created',
  'case.updated',
  'case.closed',
  'case.sla_breached',
  'observation.created',
  'summary.generated',
  'device.action_requested',
] as const;
export type EventType = (typeof eventTypes)[number];

export const eventDescriptions: Record<EventType, string> = {
  'case.created': 'A case was opened (by detection or an external observation)',
  'case.updated': 'A case changed: status, assignee, tags, severity, observations, comments, merges, response actions',
  'case.closed': 'A case was closed, with its resolution',
  'case.sla_breached':
    "A case's SLA clock ran out: acknowledge (still new) or resolve (still open), once per clock (see the SLA policy)",
  'observation.created': 'An observation was made (detection rule or external writer)',
  'summary.generated': 'An AI summary of a case was generated (the event carries its id, not the text)',
  'device.action_requested':
    'Someone requested a response action (isolate, release) on a device: for an EDR integration to carry out',
};

export interface OutboundEvent {
  type: EventType;
  /** What the event is about: a case, observation, summary or device id. */
  subject: string;
  data: Record<string, unknown>;
}

/**
 * Writes events to the outbox inside `trx`, one delivery per enabled subscription wanting each.
 * `events` may be a function, called only when the tenant has a subscription, for callers whose
 * event data costs a query.
 */
export async function emitEvents(
  trx: Db,
  tenantId: number,
  source: readonly OutboundEvent[] | (() => Promise<readonly OutboundEvent[]>),
  now = Date.now(),
): Promise<void> {
  if (Array.isArray(source) && source.length === 0) return;
  const subscriptions = (await enabledSubscriptions(trx, tenantId)).map((row) => ({
    id: row.id,
    events: new Set(JSON.parse(row.events) as string[]),
  }));
  if (subscriptions.length === 0) return;
  const events = typeof source === 'function' ? await source() : source;
  const rows: EventRow[] = [];
  const deliveries: DeliveryRow[] = [];
  for (const event of events) {
    const wanting = subscriptions.filter((subscription) => subscription.events.has(event.type));
    if (wanting.length === 0) continue;
    const row: EventRow = {
      id: newId('evt'),
      tenant_id: tenantId,
      type: event.type,
      subject: event.subject,
      data: JSON.stringify(event.data),
      occurred_at: now,
    };
    rows.push(row);
    for (const subscription of wanting) deliveries.push(newDelivery(tenantId, subscription.id, row.id, now));
  }
  await insertEvents(trx, rows);
  await insertDeliveries(trx, deliveries);
  if (deliveries.length > 0) await announceQueued(trx);
}

export function newDelivery(
  tenantId: number,
  subscriptionId: string,
  eventId: string,
  now: number,
  extra: Partial<DeliveryRow> = {},
): DeliveryRow {
  return {
    id: newId('whd'),
    tenant_id: tenantId,
    subscription_id: subscriptionId,
    event_id: eventId,
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    retry_until: null,
    lease_owner: null,
    lease_until: null,
    last_attempt_at: null,
    response_status: null,
    latency_ms: null,
    last_error: null,
    redelivery_of: null,
    created_at: now,
    delivered_at: null,
    ...extra,
  };
}

/** The CloudEvents 1.0 structured-mode body of an event (`application/cloudevents+json`). */
export function cloudEvent(event: EventRow, codeName: string): string {
  return stringifyWithRawJson({
    specversion: '1.0',
    id: event.id,
    source: `/tenants/${codeName}`,
    type: event.type,
    subject: event.subject,
    time: new Date(event.occurred_at).toISOString(),
    datacontenttype: 'application/json',
    data: new RawJson(event.data),
  });
}
