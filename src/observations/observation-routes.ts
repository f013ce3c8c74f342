// /v1/observations: list with filters, one with its evidence, and external writes (approved
// tenants only); /v1/observation-write-requests: the review that approval comes from.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Tables } from '../storage/schema.js';
import { AppError } from '../core/errors.js';
import { principalOf, tenantOf } from '../identity/auth.js';
import { decodeCursor, encodeCursor } from '../http/pagination.js';
import { NextCursor, problemResponse } from '../http/schemas.js';
import { parseIsoTime } from '../core/time.js';
import { actorOf } from '../identity/principal.js';
import type { AttackCatalogue } from '../detection/attack.js';
import type { FieldValue } from '../telemetry/normalise/event.js';
import {
  CreateObservationBody,
  DecisionBody,
  FileWriteRequestBody,
  ListObservationsQuery,
  ObservationDetailSchema,
  ObservationSchema,
  WriteRequestSchema,
} from './observation-schemas.js';
import {
  findingSource,
  getObservation,
  searchObservations,
  writeExternalObservation,
  type ObservationWriting,
} from './observation-service.js';
import { decideWriteRequest, fileWriteRequest, listWriteRequests } from './write-request-service.js';
import { answerWithRawJson } from '../http/raw-json-reply.js';
import { answerOcsf, observationFinding, OcsfFormatQuery, wantsOcsf } from '../webhooks/ocsf-findings.js';
import { routePlugin } from '../http/route-plugin.js';

const ObservationParams = Type.Object({
  observation_id: Type.String({ maxLength: 64, description: 'Observation id (`obs_…`)' }),
});
const RequestParams = Type.Object({
  request_id: Type.String({ maxLength: 64, description: 'Review request id (`owr_…`)' }),
});

export const observationRoutes = routePlugin(function observationRoutes(
  app: FastifyInstance,
  deps: { db: Kysely<Tables>; catalogue: AttackCatalogue; writing: ObservationWriting },
): void {
  const { db, catalogue, writing } = deps;
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();

  routes.get(
    '/observations',
    {
      config: { access: { scope: 'tenant', permission: 'observations:read' } },
      schema: {
        tags: ['Observations'],
        summary: 'List observations',
        description:
          "The tenant's observations, newest first, filtered by time, level, rule, ATT&CK technique, device or source.",
        querystring: ListObservationsQuery,
        response: {
          200: Type.Object(
            { observations: Type.Array(ObservationSchema), next_cursor: NextCursor },
            { description: 'A page of observations' },
          ),
        },
      },
    },
    async (request) => {
      const query = request.query;
      const before = query.cursor ? decodeCursor<{ s: number }>(query.cursor, { s: 'number' }).s : undefined;
      const page = await searchObservations(
        db,
        catalogue,
        tenantOf(request).id,
        {
          ...(query.since ? { since: parseIsoTime('since', query.since) } : {}),
          ...(query.until ? { until: parseIsoTime('until', query.until) } : {}),
          ...(query.level ? { levels: query.level.split(',') } : {}),
          ...(query.rule_id ? { ruleId: query.rule_id } : {}),
          ...(query.technique ? { technique: query.technique } : {}),
          ...(query.host ? { host: query.host } : {}),
          ...(query.source ? { source: query.source } : {}),
        },
        { limit: query.limit ?? 50, ...(before !== undefined ? { before } : {}) },
      );
      return {
        observations: page.observations,
        next_cursor: page.next === null ? null : encodeCursor({ s: page.next }),
      };
    },
  );

  routes.get(
    '/observations/:observation_id',
    {
      config: { access: { scope: 'tenant', permission: 'observations:read' } },
      schema: {
        tags: ['Observations'],
        summary: 'Get an observation',
        description:
          'One observation with its evidence: the triggering records as stored and the fields the rule looked at. ' +
          'With `format=ocsf`, or `Accept: application/vnd.ocsf+json`, the answer is the observation as an OCSF 1.3 ' +
          'Detection Finding (class 2004, `Content-Type: application/vnd.ocsf+json`), mapped as webhooks map it (docs/webhooks.md).',
        params: ObservationParams,
        querystring: OcsfFormatQuery,
        response: { 200: { ...ObservationDetailSchema, description: 'The observation' } },
      },
    },
    async (request, reply) => {
      const tenant = tenantOf(request);
      const detail = await getObservation(db, catalogue, tenant.id, request.params.observation_id);
      if (!wantsOcsf(request.query.format, request.headers.accept)) return answerWithRawJson(reply, detail);
      const finding = observationFinding(
        findingSource(detail),
        { uid: detail.id, time: Date.parse(detail.created_at), code: 'observation' },
        tenant.code_name,
      );
      return answerOcsf(reply, finding);
    },
  );

  routes.post(
    '/observations',
    {
      config: { access: { scope: 'tenant', permission: 'observations:write' } },
      schema: {
        tags: ['Observations'],
        summary: 'Write an observation',
        description:
          "Writes an observation from the caller's own detection. Needs the platform's prior approval of the tenant (see the observation-write review requests); writes are validated, held to the approved hourly volume and marked `external`. Writing the same `external_id` again returns the first observation with 200.",
        body: CreateObservationBody,
        response: {
          200: { ...ObservationDetailSchema, description: 'Already written under this external_id' },
          201: { ...ObservationDetailSchema, description: 'Written' },
          429: problemResponse('The approved hourly volume is used up', 'observation_rate_limited'),
        },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const principal = principalOf(request);
      const firstTime = parseIsoTime('first_time', body.first_time);
      const result = await writeExternalObservation(
        db,
        catalogue,
        tenantOf(request),
        {
          externalId: body.external_id,
          title: body.title,
          level: body.level,
          ...(body.rule_id ? { ruleId: body.rule_id } : {}),
          ...(body.author ? { author: body.author } : {}),
          techniques: body.techniques,
          ...(body.host ? { host: body.host } : {}),
          firstTime,
          lastTime: body.last_time ? parseIsoTime('last_time', body.last_time) : firstTime,
          recordIds: body.record_ids ?? [],
          fields: (body.fields ?? {}) as Record<string, FieldValue>,
        },
        `${principal.kind}:${principal.id}`,
        writing,
      );
      return reply.code(result.created ? 201 : 200).send(answerWithRawJson(reply, result.observation));
    },
  );

  routes.post(
    '/observation-write-requests',
    {
      config: { access: { scope: 'tenant' } },
      schema: {
        tags: ['Observations'],
        summary: 'Request approval to write observations',
        description:
          'Files the review the platform needs before the tenant may write observations: the impact on managed services, how the data correlates with other observations, and the expected volume. Tenant admins only (signed in); one request may be pending at a time. A platform operator approves or rejects it.',
        body: FileWriteRequestBody,
        response: {
          201: { ...WriteRequestSchema, description: 'Filed; pending review' },
          403: problemResponse('Only tenant admins file review requests', 'tenant_admin_required'),
          409: problemResponse('A request is already pending', 'review_request_pending'),
        },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      if (principal.role !== 'admin' && !principal.operator) {
        throw new AppError(
          'tenant_admin_required',
          'a review request is filed by a tenant admin, signed in (API tokens cannot file one)',
        );
      }
      const body = request.body;
      const filed = await fileWriteRequest(
        db,
        tenantOf(request),
        {
          serviceImpact: body.service_impact,
          correlation: body.correlation,
          expectedVolumePerHour: body.expected_volume_per_hour,
        },
        actorOf(principal),
        request.ip,
      );
      return reply.code(201).send(filed);
    },
  );

  routes.get(
    '/observation-write-requests',
    {
      config: { access: { scope: 'tenant', permission: 'observations:read' } },
      schema: {
        tags: ['Observations'],
        summary: "List the tenant's review requests",
        description:
          'Every observation-write review request of the tenant with its decision, newest first (at most 500).',
        response: { 200: Type.Object({ requests: Type.Array(WriteRequestSchema) }, { description: 'The requests' }) },
      },
    },
    async (request) => ({ requests: await listWriteRequests(db, { tenantId: tenantOf(request).id }) }),
  );

  routes.get(
    '/operator/observation-write-requests',
    {
      config: { access: { scope: 'operator' } },
      schema: {
        tags: ['Observations'],
        summary: 'Review queue (operators)',
        description:
          'Observation-write review requests of every tenant, newest first (at most 500), optionally by status. Platform operators only.',
        querystring: Type.Object(
          {
            status: Type.Optional(
              Type.Union([Type.Literal('pending'), Type.Literal('approved'), Type.Literal('rejected')]),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ requests: Type.Array(WriteRequestSchema) }, { description: 'The requests' }) },
      },
    },
    async (request) => ({
      requests: await listWriteRequests(db, request.query.status ? { status: request.query.status } : {}),
    }),
  );

  routes.post(
    '/operator/observation-write-requests/:request_id/decision',
    {
      config: { access: { scope: 'operator' } },
      schema: {
        tags: ['Observations'],
        summary: 'Approve or reject a review request (operators)',
        description:
          "Approving marks the tenant approved to write observations, held to `limit_per_hour` (default: the volume requested). Rejecting leaves the tenant's approval as it was. Audited.",
        params: RequestParams,
        body: DecisionBody,
        response: {
          200: { ...WriteRequestSchema, description: 'Decided' },
          409: problemResponse('Already decided', 'review_request_decided'),
        },
      },
    },
    async (request) => {
      const body = request.body;
      return decideWriteRequest(
        db,
        request.params.request_id,
        {
          approve: body.decision === 'approve',
          note: body.note ?? null,
          ...(body.limit_per_hour ? { limitPerHour: body.limit_per_hour } : {}),
        },
        actorOf(principalOf(request)),
        request.ip,
      );
    },
  );
});
