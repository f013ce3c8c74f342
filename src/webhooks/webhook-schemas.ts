// Request and response schemas of /v1/webhooks: they validate, shape the answers and write the
// OpenAPI document.
import { Type } from 'typebox';
import { Timestamp } from '../http/schemas.js';
import { eventDescriptions, eventTypes } from './webhook-events.js';
import { MAX_DESCRIPTION_LENGTH, MAX_SUBSCRIPTIONS_PER_TENANT } from './webhook-service.js';
import { MAX_URL_LENGTH } from './webhook-target.js';

const EventTypeSchema = Type.Enum(eventTypes, {
  description: eventTypes.map((type) => `\`${type}\`: ${eventDescriptions[type]}`).join('; '),
});

const webhookExample = {
  id: 'whk_8Xc2LmQ4vT0bN7rPz1Ka',
  url: 'https://soar.example.com/hooks/sightline',
  description: 'SOAR playbooks',
  events: ['case.created', 'device.action_requested'],
  format: 'sightline',
  enabled: true,
  disabled_reason: null,
  disabled_at: null,
  failing_since: null,
  secret_prefix: 'whsec_Q3v8…',
  created_at: '2026-11-22T09:15:00.000Z',
  created_by: 'alice@example.com',
  updated_at: '2026-11-22T09:15:00.000Z',
};

const Format = Type.Union([Type.Literal('sightline'), Type.Literal('ocsf')], {
  description:
    "The body of each delivery: `sightline` (default), CloudEvents 1.0 around Sightline's own JSON; `ocsf`, an OCSF 1.3 finding: observation.created as a Detection Finding (class 2004), case events as an Incident Finding (class 2005), other events as CloudEvents (docs/webhooks.md)",
});

export const WebhookSchema = Type.Object(
  {
    id: Type.String({ description: 'Opaque id (`whk_…`)' }),
    url: Type.String({ description: 'Where deliveries are POSTed' }),
    description: Type.String(),
    events: Type.Array(EventTypeSchema, { description: 'The events delivered to it' }),
    format: Format,
    enabled: Type.Boolean({ description: 'false: nothing is sent; deliveries wait until it is turned on again' }),
    disabled_reason: Type.Union([Type.Literal('failing'), Type.Literal('manual'), Type.Null()], {
      description:
        '`failing`: turned off after failing for the whole retry window (24 h by default) without a success; `manual`: turned off by someone; null while on',
    }),
    disabled_at: Type.Union([Timestamp('When it was turned off'), Type.Null()]),
    failing_since: Type.Union([Timestamp('Start of the current run of failed attempts'), Type.Null()], {
      description: 'Null once an attempt succeeds',
    }),
    secret_prefix: Type.String({ description: "The signing secret's first characters; never the secret" }),
    created_at: Timestamp('When it was created'),
    created_by: Type.String({ description: 'Who created it: an email, a token name, or `cli`' }),
    updated_at: Timestamp('Its latest change'),
  },
  { description: 'A webhook subscription', examples: [webhookExample] },
);

const Url = Type.String({
  minLength: 1,
  maxLength: MAX_URL_LENGTH,
  description:
    'An https URL. Its host must resolve to public addresses only, unless the operator allows loopback or the range (docs/webhooks.md)',
});
const Events = Type.Array(Type.String({ maxLength: 64 }), {
  minItems: 1,
  maxItems: eventTypes.length,
  description: `Event types to deliver: ${eventTypes.join(', ')}`,
});
const Description = Type.String({ maxLength: MAX_DESCRIPTION_LENGTH, description: 'What it is for' });

export const CreateWebhookBody = Type.Object(
  {
    url: Url,
    events: Events,
    description: Type.Optional(Description),
    enabled: Type.Optional(Type.Boolean({ description: 'Default true' })),
    format: Type.Optional(Format),
  },
  {
    additionalProperties: false,
    examples: [{ url: 'https://soar.example.com/hooks/sightline', events: ['case.created'] }],
  },
);

export const PatchWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    format: Type.Optional(Format),
    description: Type.Optional(Description),
    enabled: Type.Optional(
      Type.Boolean({ description: 'Turning it on resumes the deliveries that waited, with a fresh retry window' }),
    ),
  },
  { additionalProperties: false, minProperties: 1, examples: [{ enabled: true }] },
);

export const CreatedWebhookSchema = Type.Object(
  {
    webhook: WebhookSchema,
    secret: Type.String({
      description:
        'The signing secret (`whsec_…`). Shown this once: store it in the receiver now, it verifies every delivery',
    }),
  },
  {
    description: `Created (at most ${MAX_SUBSCRIPTIONS_PER_TENANT} per tenant)`,
    examples: [{ webhook: webhookExample, secret: 'whsec_Q3v8nZr1Tk0bXy4Wm9Lc2Hs7Jp5Fd6Ga1e0PxMabcd=' }],
  },
);

export const DeliverySchema = Type.Object(
  {
    id: Type.String({ description: 'Delivery id (`whd_…`)' }),
    event_id: Type.String({
      description: 'The CloudEvents id (also `webhook-id`): the same on every attempt and redelivery',
    }),
    event_type: Type.String(),
    status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')], {
      description:
        '`pending`: not yet sent or waiting for a retry; `delivered`: a 2xx answer; `failed`: retries ran out',
    }),
    attempts: Type.Integer({ description: 'Attempts so far' }),
    response_status: Type.Union([Type.Integer(), Type.Null()], {
      description: "The latest attempt's HTTP status; null when there was no answer",
    }),
    latency_ms: Type.Union([Type.Integer(), Type.Null()], { description: "The latest attempt's duration" }),
    last_error: Type.Union([Type.String(), Type.Null()], { description: 'Why the latest attempt failed' }),
    last_attempt_at: Type.Union([Timestamp('The latest attempt'), Type.Null()]),
    next_attempt_at: Type.Union([Timestamp('The next attempt, while pending'), Type.Null()]),
    delivered_at: Type.Union([Timestamp('When a 2xx answer came'), Type.Null()]),
    redelivery_of: Type.Union([Type.String(), Type.Null()], { description: 'The delivery this one repeats' }),
    created_at: Timestamp('When the delivery was queued'),
  },
  { description: 'One delivery of one event to the webhook' },
);

export const WebhookParams = Type.Object({
  webhook_id: Type.String({ maxLength: 64, description: 'Webhook id (`whk_…`)' }),
});

export const DeliveryParams = Type.Object({
  webhook_id: Type.String({ maxLength: 64, description: 'Webhook id (`whk_…`)' }),
  delivery_id: Type.String({ maxLength: 64, description: 'Delivery id (`whd_…`)' }),
});
