// /v1/retention: the tenant's telemetry retention, legal hold and storage use (retention:read,
// retention:write); /v1/operator/retention: every tenant's, and the allowed range the operator
// sets (platform operators only).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Tables } from '../storage/schema.js';
import { principalOf, tenantOf } from '../identity/auth.js';
import { actorOf } from '../identity/principal.js';
import { problemResponse, Timestamp } from '../http/schemas.js';
import { routePlugin } from '../http/route-plugin.js';
import { changeLimits, changeRetention, getLimits, getRetention, listRetention } from './retention-service.js';
import { MAX_DAYS, MAX_HOLD_REASON_LENGTH, MIN_DAYS } from './retention-rules.js';

const Days = (description: string) => Type.Integer({ minimum: MIN_DAYS, maximum: MAX_DAYS, description });

const LimitsSchema = Type.Object(
  {
    min_days: Days('Fewest days a tenant may keep raw telemetry'),
    max_days: Days('Most days a tenant may keep raw telemetry'),
    default_days: Days('Days kept for a tenant that chose none'),
  },
  {
    description: 'The range the platform operator allows',
    examples: [{ min_days: 1, max_days: 3650, default_days: 30 }],
  },
);

const retentionExample = {
  telemetry_days: 90,
  effective_days: 90,
  legal_hold: false,
  legal_hold_reason: null,
  limits: { min_days: 1, max_days: 3650, default_days: 30 },
  usage: {
    records: 1_250_000,
    bytes: 612_000_000,
    oldest_record_at: '2026-08-28T10:00:00.000Z',
    measured_at: '2026-11-26T10:00:00.000Z',
  },
  purged_records: 48_000,
  last_purge_at: '2026-11-26T10:00:00.000Z',
};

const retentionFields = {
  telemetry_days: Type.Union([Days("The tenant's own choice"), Type.Null()], {
    description: "Days the tenant chose to keep raw telemetry; null: the operator's default",
  }),
  effective_days: Type.Integer({
    description: 'Days raw records are kept now (the choice or default, within the range)',
  }),
  legal_hold: Type.Boolean({ description: 'true: nothing of the tenant is purged until the hold is lifted' }),
  legal_hold_reason: Type.Union([Type.String(), Type.Null()], {
    description: 'The matter the hold preserves records for',
  }),
  limits: LimitsSchema,
  usage: Type.Object(
    {
      records: Type.Union([Type.Integer(), Type.Null()], {
        description: 'Raw records kept; null until first measured',
      }),
      bytes: Type.Union([Type.Integer(), Type.Null()], {
        description: 'Bytes of raw record text kept (record and metadata)',
      }),
      oldest_record_at: Type.Union([Timestamp('Receive time of the oldest raw record kept'), Type.Null()]),
      measured_at: Type.Union([Timestamp('When the purger last measured'), Type.Null()]),
    },
    { description: 'Storage use as of the last purge pass' },
  ),
  purged_records: Type.Integer({ description: 'Raw records purged so far' }),
  last_purge_at: Type.Union([Timestamp('When records were last purged'), Type.Null()]),
};

const RetentionSchema = Type.Object(retentionFields, {
  description:
    "The tenant's raw telemetry retention. Observations, cases, the audit log and summaries are not purged: they are kept until deleted.",
  examples: [retentionExample],
});

const ChangeBody = Type.Object(
  {
    telemetry_days: Type.Optional(
      Type.Union([Type.Integer({ description: 'Days, within the allowed range' }), Type.Null()], {
        description: "Days to keep raw telemetry; null: the operator's default",
      }),
    ),
    legal_hold: Type.Optional(
      Type.Boolean({ description: 'true: suspend purging (needs a reason); false: lift the hold' }),
    ),
    legal_hold_reason: Type.Optional(
      Type.Union([Type.String({ maxLength: MAX_HOLD_REASON_LENGTH }), Type.Null()], {
        description: 'The matter the hold preserves records for',
      }),
    ),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    examples: [{ telemetry_days: 90 }, { legal_hold: true, legal_hold_reason: 'Matter 2026-114' }],
  },
);

export const retentionRoutes = routePlugin(function retentionRoutes(
  app: FastifyInstance,
  deps: { db: Kysely<Tables> },
): void {
  const { db } = deps;
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Retention'];

  routes.get(
    '/retention',
    {
      config: { access: { scope: 'tenant', permission: 'retention:read' } },
      schema: {
        tags,
        summary: "The tenant's telemetry retention",
        description:
          'How long raw records are kept, whether a legal hold suspends purging, the storage the raw records use, and what has been purged.',
        response: { 200: RetentionSchema },
      },
    },
    async (request) => getRetention(db, tenantOf(request).id),
  );

  routes.patch(
    '/retention',
    {
      config: { access: { scope: 'tenant', permission: 'retention:write' } },
      schema: {
        tags,
        summary: "Change the tenant's telemetry retention or legal hold",
        description:
          'Sets the days raw records are kept (within the range the operator allows: 400 `retention_out_of_range` otherwise), and places or lifts a legal hold. The purger applies a shorter retention on its next pass; records an open case cites are kept until the case closes. Audited.',
        body: ChangeBody,
        response: {
          200: RetentionSchema,
          400: problemResponse('Days outside the allowed range, or a hold without a reason', 'retention_out_of_range'),
        },
      },
    },
    async (request) =>
      changeRetention(
        { db, tenantId: tenantOf(request).id, actor: actorOf(principalOf(request)), ip: request.ip },
        request.body,
      ),
  );

  routes.get(
    '/operator/retention',
    {
      config: { access: { scope: 'operator' } },
      schema: {
        tags,
        summary: "Every tenant's retention and storage use",
        description: 'The allowed range, and for each tenant its retention, legal hold, raw storage use and purges.',
        response: {
          200: Type.Object(
            {
              limits: LimitsSchema,
              tenants: Type.Array(
                Type.Object({
                  code_name: Type.String({ description: "The tenant's code name" }),
                  name: Type.String({ description: "The tenant's display name" }),
                  ...retentionFields,
                }),
              ),
            },
            { description: 'Retention across the platform' },
          ),
        },
      },
    },
    async () => ({ limits: await getLimits(db), tenants: await listRetention(db) }),
  );

  routes.patch(
    '/operator/retention/limits',
    {
      config: { access: { scope: 'operator' } },
      schema: {
        tags,
        summary: 'Change the allowed retention range',
        description:
          'Sets the fewest and most days a tenant may choose and the default for tenants that chose none (default_days within the range). A tenant whose choice falls outside a narrowed range is kept at the nearest bound. Audited.',
        body: Type.Partial(LimitsSchema, { additionalProperties: false, minProperties: 1 }),
        response: { 200: LimitsSchema, 400: problemResponse('An inconsistent range', 'invalid_request') },
      },
    },
    async (request) => changeLimits(db, request.body, actorOf(principalOf(request)), request.ip),
  );
});
