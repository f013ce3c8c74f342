// Outbound events (migration 0031; webhooks/webhook-store.ts): subscriptions, the event outbox
// and one delivery per event and subscription.

export interface WebhookSubscriptionsTable {
  /** `whk_…` */
  id: string;
  tenant_id: number;
  /** An https URL (http only to loopback when the operator allows it). */
  url: string;
  description: string;
  /** JSON array of event types, such as ["case.created"]. */
  events: string;
  /** The body format: `sightline` (CloudEvents around Sightline's JSON) or `ocsf` (OCSF findings). */
  format: string;
  /** The signing secret, AES-256-GCM under the deployment's webhook key, bound to the subscription; never returned. */
  secret_sealed: string;
  /** The secret's first characters (`whsec_AbCd`), to tell secrets apart. */
  secret_prefix: string;
  /** 1: events are delivered; 0: not (deliveries wait for it to be turned on again). */
  enabled: number;
  /** Why it was turned off: `failing` (by the dispatcher after failing for the retry window) or `manual`. */
  disabled_reason: string | null;
  disabled_at: number | null;
  /** Start of the current run of failed attempts; null after a success. */
  failing_since: number | null;
  created_at: number;
  created_by: string;
  updated_at: number;
}

export interface WebhookEventsTable {
  /** `evt_…`: the CloudEvents id, the same on every attempt and redelivery. */
  id: string;
  tenant_id: number;
  type: string;
  /** What the event is about, such as a case id. */
  subject: string;
  /** JSON of the CloudEvents `data`. */
  data: string;
  occurred_at: number;
}

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDeliveriesTable {
  /** `whd_…` */
  id: string;
  tenant_id: number;
  subscription_id: string;
  event_id: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  next_attempt_at: number;
  /** Past this, a failed attempt is the last one; null: created_at plus the retry window. */
  retry_until: number | null;
  /** The dispatcher holding the delivery, until lease_until. */
  lease_owner: string | null;
  lease_until: number | null;
  last_attempt_at: number | null;
  /** HTTP status of the latest attempt; null when there was no answer. */
  response_status: number | null;
  latency_ms: number | null;
  last_error: string | null;
  /** The delivery this one repeats (a redelivery someone asked for). */
  redelivery_of: string | null;
  created_at: number;
  delivered_at: number | null;
}
