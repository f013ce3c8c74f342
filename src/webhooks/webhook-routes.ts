// /v1/webhooks: the tenant's webhook subscriptions (list, create with the signing secret shown
// once, change, turn on or off, delete), each one's delivery log and redelivery. Reading needs
// webhooks:read, changing webhooks:write.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Database } from '../storage/database.js';
import { principalOf, tenantOf } from '../identity/auth.js';
import { actorOf } from '../identity/principal.js';
import { decodeCursor, encodeCursor } from '../http/pagination.js';
import { NextCursor, PageQuery, problemResponse } from '../http/schemas.js';
import { routePlugin } from '../http/route-plugin.js';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhookDeliveries,
  listWebhooks,
  redeliver,
  updateWebhook,
  type WebhookContext,
} from './webhook-service.js';
import {
  CreatedWebhookSchema,
  CreateWebhookBody,
  DeliveryParams,
  DeliverySchema,
  PatchWebhookBody,
  WebhookParams,
  WebhookSchema,
} from './webhook-schemas.js';
import type { TargetPolicy } from './webhook-target.js';

export interface WebhookRouteDeps {
  database: Database;
  policy: TargetPolicy;
  retryWindowMs: number;
  /** Deliveries were queued here: the local dispatcher looks at once. */
  queued(): void;
}

export const webhookRoutes = routePlugin(function webhookRoutes(app: FastifyInstance, deps: WebhookRouteDeps): void {
  const { db } = deps.database;
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  const read = { access: { scope: 'tenant', permission: 'webhooks:read' } } as const;
  const write = { access: { scope: 'tenant', permission: 'webhooks:write' } } as const;
  const tags = ['Webhooks'];
  const context = (request: FastifyRequest): WebhookContext => ({
    db,
    tenantId: tenantOf(request).id,
    actor: actorOf(principalOf(request)),
    ip: request.ip,
    policy: deps.policy,
    retryWindowMs: deps.retryWindowMs,
    queued: () => deps.queued(),
  });
  const notFound = problemResponse('The tenant has no such webhook', 'not_found');

  routes.get(
    '/webhooks',
    {
      config: read,
      schema: {
        tags,
        summary: 'List webhooks',
        description:
          "The tenant's webhook subscriptions, oldest first. A subscription turned off because it kept failing says so in `disabled_reason`.",
        response: { 200: Type.Object({ webhooks: Type.Array(WebhookSchema) }, { description: 'Every subscription' }) },
      },
    },
    async (request) => ({ webhooks: await listWebhooks(db, tenantOf(request).id) }),
  );

  routes.post(
    '/webhooks',
    {
      config: write,
      schema: {
        tags,
        summary: 'Create a webhook',
        description:
          'Subscribes a URL to events. Deliveries are CloudEvents 1.0 (`application/cloudevents+json`) signed with HMAC-SHA256 (`webhook-id`, `webhook-timestamp`, `webhook-signature`); the signing secret is in this response only.',
        body: CreateWebhookBody,
        response: {
          201: CreatedWebhookSchema,
          400: problemResponse('The URL is not allowed', 'invalid_webhook_url'),
        },
      },
    },
    async (request, reply) => {
      const created = await createWebhook(context(request), request.body);
      reply.header('Cache-Control', 'no-store');
      return reply.code(201).send(created);
    },
  );

  routes.get(
    '/webhooks/:webhook_id',
    {
      config: read,
      schema: {
        tags,
        summary: 'Get a webhook',
        params: WebhookParams,
        response: { 200: WebhookSchema, 404: notFound },
      },
    },
    async (request) => getWebhook(db, tenantOf(request).id, request.params.webhook_id),
  );

  routes.patch(
    '/webhooks/:webhook_id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Change a webhook',
        description:
          'Changes the URL, events or description, or turns it on or off. Turning it on resumes the deliveries that waited, each with a fresh retry window.',
        params: WebhookParams,
        body: PatchWebhookBody,
        response: { 200: WebhookSchema, 404: notFound },
      },
    },
    async (request) => updateWebhook(context(request), request.params.webhook_id, request.body),
  );

  routes.delete(
    '/webhooks/:webhook_id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Delete a webhook',
        description: 'Deletes the subscription and its delivery log; nothing more is sent to it.',
        params: WebhookParams,
        response: { 204: { description: 'Deleted', type: 'null' }, 404: notFound },
      },
    },
    async (request, reply) => {
      await deleteWebhook(context(request), request.params.webhook_id);
      return reply.code(204).send(null);
    },
  );

  routes.get(
    '/webhooks/:webhook_id/deliveries',
    {
      config: read,
      schema: {
        tags,
        summary: "A webhook's delivery log",
        description:
          "The webhook's deliveries, newest first, each with its status, attempts and the latest attempt's response status, latency and error.",
        params: WebhookParams,
        querystring: Type.Object({ ...PageQuery }, { additionalProperties: false }),
        response: {
          200: Type.Object(
            { deliveries: Type.Array(DeliverySchema), next_cursor: NextCursor },
            { description: 'A page of deliveries' },
          ),
          404: notFound,
        },
      },
    },
    async (request) => {
      const { limit = 50, cursor } = request.query;
      const before = cursor ? decodeCursor<{ c: number; i: string }>(cursor, { c: 'number', i: 'string' }) : undefined;
      const page = await listWebhookDeliveries(db, tenantOf(request).id, request.params.webhook_id, {
        limit,
        ...(before ? { before: { createdAt: before.c, id: before.i } } : {}),
      });
      return {
        deliveries: page.deliveries,
        next_cursor: page.next ? encodeCursor({ c: page.next.createdAt, i: page.next.id }) : null,
      };
    },
  );

  routes.post(
    '/webhooks/:webhook_id/deliveries/:delivery_id/redeliver',
    {
      config: write,
      schema: {
        tags,
        summary: 'Redeliver',
        description:
          "Sends the delivery's event again as a new delivery, with the same event id (receivers that de-duplicate by it skip an event they processed) and a fresh retry window.",
        params: DeliveryParams,
        response: { 202: DeliverySchema, 404: problemResponse('No such webhook or delivery', 'not_found') },
      },
    },
    async (request, reply) =>
      reply.code(202).send(await redeliver(context(request), request.params.webhook_id, request.params.delivery_id)),
  );
});
