// Response shapes of Settings › Webhooks, from the server's own route schemas (types only).
import type { Static } from 'typebox';
import type { DeliverySchema, WebhookSchema } from '../../../../src/webhooks/webhook-schemas.js';

export type Webhook = Static<typeof WebhookSchema>;
export type WebhookDelivery = Static<typeof DeliverySchema>;

/** The events a subscription can take, as the server lists them. */
export const webhookEvents = [
  'case.created',
  'case.updated',
  'case.closed',
  'observation.created',
  'summary.generated',
  'device.action_requested',
] as const satisfies readonly Webhook['events'][number][];
