// POST /log_sink: the HTTPS log collector (docs/collector.md), and the collector's scope where
// every intake protocol lives. The shared path (tenant from the Host header, ingest key and
// limits before the body is read, durable all-or-nothing storage) is intake.ts; this route
// parses JSON and NDJSON and answers 201 only once the records are committed.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../core/errors.js';
import { problemResponses } from '../../http/schemas.js';
import { routePlugin } from '../../http/route-plugin.js';
import { parseBody } from './parse.js';
import { createIntake, type CollectorDependencies } from './intake.js';
import { registerHecIntake } from '../hec/hec-routes.js';
import { registerOtlpIntake } from '../otlp/otlp-intake.js';
import { registerBulkIntake } from '../bulk/bulk-routes.js';

export type { CollectorDependencies } from './intake.js';

const AcceptedSchema = Type.Object(
  { accepted: Type.Integer({ minimum: 1, description: 'Records stored from this request' }) },
  { additionalProperties: false },
);

export const collectorRoutes = routePlugin(function collectorRoutes(
  app: FastifyInstance,
  deps: CollectorDependencies,
): void {
  const intake = createIntake(app, deps);

  app.route({
    method: 'POST',
    url: '/log_sink',
    schema: {
      summary: 'Send log records',
      description:
        'One JSON object, or JSON objects one per line (NDJSON). The tenant comes from the Host header ' +
        '<code_name>-collector.<base-domain>. Answered 201 only once the records are durable. In the scale-out ' +
        'mode a retry carrying the Idempotency-Key of a request already stored is stored once and answered 201 ' +
        "with Idempotent-Replayed: true. Over the tenant's ingest limits it answers 429 rate_limited with " +
        "Retry-After and stores nothing from the request; a request larger than a limit's burst is answered 413 " +
        'request_exceeds_burst.',
      response: { 201: AcceptedSchema, ...problemResponses },
    },
    onRequest: intake.admit(),
    handler: async (request, reply) => {
      const receivedAt = Date.now();
      const { body } = intake.bodyOf(request);
      if (body.length === 0) {
        throw new AppError('empty_body', 'the body is empty: send one JSON object, or JSON objects one per line');
      }
      const parsed = parseBody(body, { maxRecordBytes: deps.config.maxRecordBytes });
      await intake.store(request, reply, parsed, { receivedAt, protocol: 'log_sink' });
      return reply.code(201).send({ accepted: parsed.records.length });
    },
  });

  registerHecIntake(app, intake, deps);
  registerOtlpIntake(app, intake, deps);
  registerBulkIntake(app, intake, deps);
});
