// Webhook subscriptions (docs/webhooks.md): per tenant, a URL, the events it wants and a signing
// secret shown once at creation (kept sealed so deliveries can be signed); turned on and off by
// people, or off by the dispatcher after failing for the retry window. Every change is audited.
// The delivery log shows each delivery's latest attempt; a redelivery sends the same event
// (same id) again as a new delivery.
import type { Kysely } from 'kysely';
import type { Tables } from '../storage/schema.js';
import { writeTransaction } from '../storage/write-transaction.js';
import { AppError } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { hasControlCharacter } from '../core/control-characters.js';
import { recordAudit } from '../identity/audit/audit-service.js';
import type { AuditActor } from '../identity/principal.js';
import {
  countSubscriptions,
  deleteSubscription,
  findDelivery,
  findEvent,
  findSubscription,
  insertDeliveries,
  insertSubscription,
  listDeliveries,
  listSubscriptions,
  resumeDeliveries,
  updateSubscription,
  type DeliveryWithType,
  type SubscriptionRow,
} from './webhook-store.js';
import { eventTypes, newDelivery, type EventType } from './webhook-events.js';
import { checkTargetUrl, type TargetPolicy } from './webhook-target.js';
import { generateSigningSecret } from './webhook-signature.js';
import { secretContext, webhookSealer } from './webhook-secrets.js';

export const MAX_SUBSCRIPTIONS_PER_TENANT = 25;
export const MAX_DESCRIPTION_LENGTH = 200;

export interface WebhookContext {
  db: Kysely<Tables>;
  tenantId: number;
  actor: AuditActor;
  ip: string | null;
  policy: TargetPolicy;
  retryWindowMs: number;
  /** Told when deliveries were queued, so this process's dispatcher looks at once. */
  queued?: () => void;
}

/** A subscription's body format (docs/webhooks.md): CloudEvents around Sightline's JSON, or OCSF findings. */
export type WebhookFormat = 'sightline' | 'ocsf';

export interface WebhookView {
  id: string;
  url: string;
  description: string;
  events: EventType[];
  format: WebhookFormat;
  enabled: boolean;
  /** `failing`: turned off by the dispatcher after failing for the retry window; `manual`: by a person. */
  disabled_reason: 'failing' | 'manual' | null;
  disabled_at: string | null;
  failing_since: string | null;
  secret_prefix: string;
  created_at: string;
  created_by: string;
  updated_at: string;
}

export interface DeliveryView {
  id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  response_status: number | null;
  latency_ms: number | null;
  last_error: string | null;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
  redelivery_of: string | null;
  created_at: string;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function presentWebhook(row: SubscriptionRow): WebhookView {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: JSON.parse(row.events) as EventType[],
    format: row.format === 'ocsf' ? 'ocsf' : 'sightline',
    enabled: row.enabled === 1,
    disabled_reason: row.enabled === 1 ? null : ((row.disabled_reason ?? 'manual') as 'failing' | 'manual'),
    disabled_at: iso(row.disabled_at),
    failing_since: iso(row.failing_since),
    secret_prefix: `${row.secret_prefix}…`,
    created_at: iso(row.created_at) ?? '',
    created_by: row.created_by,
    updated_at: iso(row.updated_at) ?? '',
  };
}

export function presentDelivery(row: DeliveryWithType): DeliveryView {
  return {
    id: row.id,
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status,
    attempts: row.attempts,
    response_status: row.response_status,
    latency_ms: row.latency_ms,
    last_error: row.last_error,
    last_attempt_at: iso(row.last_attempt_at),
    next_attempt_at: row.status === 'pending' ? iso(row.next_attempt_at) : null,
    delivered_at: iso(row.delivered_at),
    redelivery_of: row.redelivery_of,
    created_at: iso(row.created_at) ?? '',
  };
}

function checkEvents(events: readonly string[]): EventType[] {
  const unknown = events.filter((event) => !(eventTypes as readonly string[]).includes(event));
  if (events.length === 0 || unknown.length > 0)
    throw new AppError(
      'invalid_request',
      `events must name at least one of ${eventTypes.join(', ')}${unknown.length > 0 ? `; unknown: ${unknown.join(', ')}` : ''}`,
      { extensions: { field: 'events' } },
    );
  return eventTypes.filter((event) => events.includes(event));
}

function checkDescription(description: string): string {
  const value = description.trim();
  if (value.length > MAX_DESCRIPTION_LENGTH || hasControlCharacter(value))
    throw new AppError(
      'invalid_request',
      `description must be at most ${MAX_DESCRIPTION_LENGTH} characters, without control characters`,
      { extensions: { field: 'description' } },
    );
  return value;
}

async function requireWebhook(db: Kysely<Tables>, tenantId: number, id: string): Promise<SubscriptionRow> {
  const row = await findSubscription(db, tenantId, id);
  if (!row) throw new AppError('not_found', `webhook ${id} not found`);
  return row;
}

/** Creates a subscription; the returned secret is the only time it exists outside the database. */
export async function createWebhook(
  ctx: WebhookContext,
  input: { url: string; events: string[]; description?: string; enabled?: boolean; format?: WebhookFormat },
  now = Date.now(),
): Promise<{ webhook: WebhookView; secret: string }> {
  const url = checkTargetUrl(input.url, ctx.policy).toString();
  const events = checkEvents(input.events);
  const description = checkDescription(input.description ?? '');
  if ((await countSubscriptions(ctx.db, ctx.tenantId)) >= MAX_SUBSCRIPTIONS_PER_TENANT)
    throw new AppError(
      'invalid_request',
      `a tenant has at most ${MAX_SUBSCRIPTIONS_PER_TENANT} webhooks; delete one it no longer uses first`,
      { extensions: { limit: MAX_SUBSCRIPTIONS_PER_TENANT } },
    );
  const secret = generateSigningSecret();
  const id = newId('whk');
  const enabled = input.enabled ?? true;
  const row: SubscriptionRow = {
    id,
    tenant_id: ctx.tenantId,
    url,
    description,
    events: JSON.stringify(events),
    format: input.format ?? 'sightline',
    secret_sealed: (await webhookSealer(ctx.db)).seal(secret, secretContext({ tenant_id: ctx.tenantId, id })),
    secret_prefix: secret.slice(0, 10),
    enabled: enabled ? 1 : 0,
    disabled_reason: enabled ? null : 'manual',
    disabled_at: enabled ? null : now,
    failing_since: null,
    created_at: now,
    created_by: ctx.actor.label,
    updated_at: now,
  };
  await writeTransaction(ctx.db, async (trx) => {
    await insertSubscription(trx, row);
    await recordAudit(trx, {
      tenantId: ctx.tenantId,
      action: 'webhook.created',
      actor: ctx.actor,
      ip: ctx.ip,
      target: { type: 'webhook', id },
      details: { url, events, format: row.format },
    });
  });
  return { webhook: presentWebhook(row), secret };
}

export async function listWebhooks(db: Kysely<Tables>, tenantId: number): Promise<WebhookView[]> {
  return (await listSubscriptions(db, tenantId)).map(presentWebhook);
}

export async function getWebhook(db: Kysely<Tables>, tenantId: number, id: string): Promise<WebhookView> {
  return presentWebhook(await requireWebhook(db, tenantId, id));
}

/** Changes the URL, events, description or whether it is on; turning it on resumes waiting deliveries. */
export async function updateWebhook(
  ctx: WebhookContext,
  id: string,
  changes: { url?: string; events?: string[]; description?: string; enabled?: boolean; format?: WebhookFormat },
  now = Date.now(),
): Promise<WebhookView> {
  const set: Partial<SubscriptionRow> = { updated_at: now };
  if (changes.url !== undefined) set.url = checkTargetUrl(changes.url, ctx.policy).toString();
  if (changes.events !== undefined) set.events = JSON.stringify(checkEvents(changes.events));
  if (changes.description !== undefined) set.description = checkDescription(changes.description);
  if (changes.format !== undefined) set.format = changes.format;
  const row = await writeTransaction(ctx.db, async (trx) => {
    const before = await requireWebhook(trx, ctx.tenantId, id);
    if (changes.enabled === true && before.enabled === 0) {
      Object.assign(set, { enabled: 1, disabled_reason: null, disabled_at: null, failing_since: null });
      await resumeDeliveries(trx, ctx.tenantId, id, now, ctx.retryWindowMs);
    } else if (changes.enabled === false && before.enabled === 1) {
      Object.assign(set, { enabled: 0, disabled_reason: 'manual', disabled_at: now });
    }
    await updateSubscription(trx, ctx.tenantId, id, set);
    const { updated_at: _at, ...changed } = set;
    await recordAudit(trx, {
      tenantId: ctx.tenantId,
      action: 'webhook.updated',
      actor: ctx.actor,
      ip: ctx.ip,
      target: { type: 'webhook', id },
      details: {
        ...changed,
        ...(changed.events !== undefined ? { events: JSON.parse(changed.events) as unknown } : {}),
      },
    });
    return { ...before, ...set };
  });
  if (row.enabled === 1) ctx.queued?.();
  return presentWebhook(row);
}

export async function deleteWebhook(ctx: WebhookContext, id: string): Promise<void> {
  await writeTransaction(ctx.db, async (trx) => {
    const row = await requireWebhook(trx, ctx.tenantId, id);
    await deleteSubscription(trx, ctx.tenantId, id);
    await recordAudit(trx, {
      tenantId: ctx.tenantId,
      action: 'webhook.deleted',
      actor: ctx.actor,
      ip: ctx.ip,
      target: { type: 'webhook', id },
      details: { url: row.url },
    });
  });
}

export async function listWebhookDeliveries(
  db: Kysely<Tables>,
  tenantId: number,
  id: string,
  page: { limit: number; before?: { createdAt: number; id: string } },
): Promise<{ deliveries: DeliveryView[]; next?: { createdAt: number; id: string } }> {
  await requireWebhook(db, tenantId, id);
  const rows = await listDeliveries(db, tenantId, id, { ...page, limit: page.limit + 1 });
  const shown = rows.slice(0, page.limit);
  const last = shown.at(-1);
  return {
    deliveries: shown.map(presentDelivery),
    ...(rows.length > page.limit && last ? { next: { createdAt: last.created_at, id: last.id } } : {}),
  };
}

/** Sends a delivery's event again, as a new delivery with a fresh retry window (same event id). */
export async function redeliver(
  ctx: WebhookContext,
  webhookId: string,
  deliveryId: string,
  now = Date.now(),
): Promise<DeliveryView> {
  const view = await writeTransaction(ctx.db, async (trx) => {
    const subscription = await requireWebhook(trx, ctx.tenantId, webhookId);
    const original = await findDelivery(trx, ctx.tenantId, deliveryId);
    if (original?.subscription_id !== subscription.id)
      throw new AppError('not_found', `delivery ${deliveryId} of webhook ${webhookId} not found`);
    const row = newDelivery(ctx.tenantId, subscription.id, original.event_id, now, {
      redelivery_of: original.id,
      retry_until: now + ctx.retryWindowMs,
    });
    await insertDeliveries(trx, [row]);
    await recordAudit(trx, {
      tenantId: ctx.tenantId,
      action: 'webhook.redelivered',
      actor: ctx.actor,
      ip: ctx.ip,
      target: { type: 'webhook', id: subscription.id },
      details: { delivery_id: row.id, redelivery_of: original.id, event_id: original.event_id },
    });
    const event = await findEvent(trx, ctx.tenantId, original.event_id);
    return presentDelivery({ ...row, event_type: event?.type ?? '' });
  });
  ctx.queued?.();
  return view;
}
