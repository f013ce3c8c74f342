// /v1/devices/{id}/actions: response actions on a device — list (devices:read), request
// isolation or release with a reason (devices:respond), and the EDR integration's confirmation
// of the outcome (devices:respond).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Kysely } from 'kysely';
import type { Tables } from '../storage/schema.js';
import { principalOf, tenantOf } from '../identity/auth.js';
import { actorOf } from '../identity/principal.js';
import { problemResponse, Timestamp } from '../http/schemas.js';
import { routePlugin } from '../http/route-plugin.js';
import {
  confirmAction,
  listActions,
  MAX_REASON_LENGTH,
  requestAction,
  type DeviceActionContext,
} from './device-action-service.js';
import { deviceActionKinds } from './device-action-rules.js';
import type { DeviceReactions } from './device-service.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

const actionExample = {
  id: 'dact_5Kq9LmN2xR7tY1wP0sDa',
  device_id: 'dev_8Jd2kQp0LsX1vN5aRt7y',
  case_id: 'case_2vPq8LmN4xR7tY1wK9sD',
  action: 'isolate',
  status: 'requested',
  reason: 'Cobalt Strike beacon on web-01; contain before triage',
  requested_at: '2026-11-22T09:15:00.000Z',
  requested_by: 'alice@example.com',
  completed_at: null,
  completed_by: null,
  outcome_detail: null,
};

export const DeviceActionSchema = Type.Object(
  {
    id: Type.String({ description: 'Action id (`dact_…`)' }),
    device_id: Type.String(),
    case_id: Nullable(Type.String({ description: 'The case it was requested from' })),
    action: Type.Enum(deviceActionKinds, { description: 'isolate: cut the device off the network; release: undo it' }),
    status: Type.Enum(['requested', 'succeeded', 'failed'] as const, {
      description: 'requested: waiting for the integration to confirm; then succeeded or failed',
    }),
    reason: Type.String({ description: 'Why it was requested' }),
    requested_at: Timestamp('When it was requested'),
    requested_by: Type.String({ description: 'Who requested it: an email, a token name, or `cli`' }),
    completed_at: Type.Union([Timestamp('When the outcome was confirmed'), Type.Null()]),
    completed_by: Nullable(Type.String({ description: 'Who confirmed it (usually the integration’s token)' })),
    outcome_detail: Nullable(Type.String({ description: 'What the integration said' })),
  },
  { description: 'A response action on a device', examples: [actionExample] },
);

const DeviceParams = Type.Object({ device_id: Type.String({ maxLength: 64, description: 'Device id (`dev_…`)' }) });
const ActionParams = Type.Object({
  device_id: Type.String({ maxLength: 64, description: 'Device id (`dev_…`)' }),
  action_id: Type.String({ maxLength: 64, description: 'Action id (`dact_…`)' }),
});

export const deviceActionRoutes = routePlugin(function deviceActionRoutes(
  app: FastifyInstance,
  deps: { db: Kysely<Tables>; reactions: DeviceReactions; queued: () => void },
): void {
  const { db } = deps;
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Devices'];
  const respond = { access: { scope: 'tenant', permission: 'devices:respond' } } as const;
  const context = (request: FastifyRequest): DeviceActionContext => ({
    db,
    tenantId: tenantOf(request).id,
    actor: actorOf(principalOf(request)),
    ip: request.ip,
    reactions: deps.reactions,
    queued: () => deps.queued(),
  });

  routes.get(
    '/devices/:device_id/actions',
    {
      config: { access: { scope: 'tenant', permission: 'devices:read' } },
      schema: {
        tags,
        summary: "A device's response actions",
        description: 'Isolation and release requests on the device with their outcomes, newest first (up to 100).',
        params: DeviceParams,
        response: {
          200: Type.Object({ actions: Type.Array(DeviceActionSchema) }, { description: 'The actions' }),
          404: problemResponse('No such device', 'not_found'),
        },
      },
    },
    async (request) => ({ actions: await listActions(db, tenantOf(request).id, request.params.device_id) }),
  );

  routes.post(
    '/devices/:device_id/actions',
    {
      config: respond,
      schema: {
        tags,
        summary: 'Request isolation or release',
        description:
          "Records the request on the device (isolation_state becomes isolation_requested or release_requested), in the audit log and, with `case_id`, in that case's history, and sends a `device.action_requested` webhook event for the tenant's EDR integration, which confirms the outcome with POST /v1/devices/{device_id}/actions/{action_id}. One action at a time per device.",
        params: DeviceParams,
        body: Type.Object(
          {
            action: Type.Enum(deviceActionKinds),
            reason: Type.String({
              minLength: 1,
              maxLength: MAX_REASON_LENGTH,
              description: 'Why (kept with the action)',
            }),
            case_id: Type.Optional(Type.String({ maxLength: 64, description: 'The case it is requested from' })),
          },
          { additionalProperties: false, examples: [{ action: 'isolate', reason: 'Beacon to known C2' }] },
        ),
        response: {
          201: DeviceActionSchema,
          404: problemResponse('No such device or case', 'not_found'),
          409: problemResponse('An action is pending, or the device is already in that state', 'invalid_device_action'),
        },
      },
    },
    async (request, reply) => {
      const { action, reason, case_id: caseId } = request.body;
      const created = await requestAction(context(request), request.params.device_id, {
        action,
        reason,
        ...(caseId !== undefined ? { caseId } : {}),
      });
      return reply.code(201).send(created);
    },
  );

  routes.post(
    '/devices/:device_id/actions/:action_id',
    {
      config: respond,
      schema: {
        tags,
        summary: 'Confirm the outcome of an action',
        description:
          "What an EDR integration calls once it carried out (or could not carry out) a requested action: the device's isolation_state becomes isolated, isolation_failed, released or release_failed. Audited, and in the case's history when the action came from a case. An action's outcome is set once (409 `device_action_decided` after).",
        params: ActionParams,
        body: Type.Object(
          {
            outcome: Type.Enum(['succeeded', 'failed'] as const),
            detail: Type.Optional(
              Type.String({ maxLength: MAX_REASON_LENGTH, description: 'What the integration saw' }),
            ),
          },
          { additionalProperties: false, examples: [{ outcome: 'succeeded', detail: 'Host contained by EDR policy' }] },
        ),
        response: {
          200: DeviceActionSchema,
          404: problemResponse('No such device or action', 'not_found'),
          409: problemResponse('The outcome was already confirmed', 'device_action_decided'),
        },
      },
    },
    async (request) =>
      confirmAction(context(request), request.params.device_id, request.params.action_id, request.body),
  );
});
