// POST /log_sink: the HTTPS log collector (docs/collector.md). The route resolves the
// tenant from the Host header and checks its ingest key before reading the body, reads and decodes the body within its
// limits, parses it all-or-nothing, and answers 201 only once the records are committed.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../../config/config.js';
import type { RecordQueue } from '../../record-log/record-log.js';
import type { Metrics } from '../../observability/metrics.js';
import { Type } from 'typebox';
import { AppError, overloaded } from '../../core/errors.js';
import { problemResponses } from '../../http/schemas.js';
import { routePlugin } from '../../http/route-plugin.js';
import { BodyBudget, checkMediaType, readBody, type ReadBody } from './body.js';
import { parseBody } from './parse.js';
import type { CollectorTenant, CollectorTenants } from './tenant-routing.js';
import type { CollectorDiagnostics } from '../diagnostics/collector-diagnostics.js';
import { ingestKeyRefusal, type IngestKeyGate } from '../ingest-keys/ingest-key-gate.js';
import type { IngestLimiter } from '../ingest-limits/ingest-limiter.js';

const AcceptedSchema = Type.Object(
  { accepted: Type.Integer({ minimum: 1, description: 'Records stored from this request' }) },
  { additionalProperties: false },
);

export interface CollectorDependencies {
  config: Pick<Config, 'maxBodyBytes' | 'maxRecordBytes' | 'maxInflightBytes'>;
  tenants: CollectorTenants;
  queue: RecordQueue;
  metrics: Metrics;
  /** Per-tenant counts of senders and refusals (Settings › Collector). */
  diagnostics: CollectorDiagnostics;
  /** Which requests carry a valid ingest key, for tenants that require one. */
  ingestKeys: IngestKeyGate;
  /** Each tenant's ingest limits (none by default). */
  ingestLimits: IngestLimiter;
}

/**
 * Who sent a request, as the diagnostics name senders. A client that hung up before the answer
 * has no socket address left to read (Node gives undefined despite the type): it is named unknown.
 */
const senderOf = (request: FastifyRequest) => ({
  userAgent: request.headers['user-agent'] ?? '',
  address: (request.ip as string | undefined) ?? 'unknown',
});

declare module 'fastify' {
  interface FastifyRequest {
    collectorTenant?: CollectorTenant;
    /** Bytes of this request's body held against the collector's body budget. */
    heldBodyBytes: number;
  }
}

export const collectorRoutes = routePlugin(function collectorRoutes(
  app: FastifyInstance,
  deps: CollectorDependencies,
): void {
  const { config, tenants, queue, metrics, diagnostics, ingestKeys, ingestLimits } = deps;
  /** Throws a limit's refusal, counted for the tenant; `records` is 0 when the body was not read. */
  const refuseOverLimit = (tenant: CollectorTenant, refusal: AppError | undefined, records: number) => {
    if (!refusal) return;
    metrics.collectorRateLimitedRequests.inc({ tenant: tenant.codeName });
    metrics.collectorRateLimitedRecords.inc({ tenant: tenant.codeName }, records);
    throw refusal;
  };
  const budget = new BodyBudget(config.maxInflightBytes);
  app.decorateRequest('heldBodyBytes', 0);

  // The collector reads its own bodies: any media type it accepts, compressed or not.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', async (request: FastifyRequest) => {
    checkMediaType(request.headers);
    const charge = (bytes: number) => {
      budget.take(bytes, request.heldBodyBytes);
      request.heldBodyBytes += bytes;
      metrics.collectorBodyBytes.set(budget.bytesInUse);
    };
    return readBody(request.raw, request.headers, { maxBodyBytes: config.maxBodyBytes }, charge);
  });

  app.addHook('onError', async (request, _reply, error) => {
    if (!(error instanceof AppError)) return;
    metrics.collectorRejects.inc({ reason: error.code });
    // Refusals are the tenant's to see once its collector address is known.
    if (request.collectorTenant)
      diagnostics.refused(request.collectorTenant.id, senderOf(request), { code: error.code, detail: error.detail });
  });

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
    onRequest: async (request, reply) => {
      // The body is released when the response is done, whichever way it ends.
      reply.raw.once('close', () => {
        budget.release(request.heldBodyBytes);
        request.heldBodyBytes = 0;
        metrics.collectorBodyBytes.set(budget.bytesInUse);
      });
      // Reject early, before reading a body for a collector that does not exist, needs a key
      // the request lacks, or is full: the answer costs no memory and no waiting. An unknown
      // address gets the answer a keyed tenant gives a request without a valid key.
      const tenant = await tenants.find(request.headers.host);
      if (!tenant) throw ingestKeyRefusal(request.headers.authorization);
      request.collectorTenant = tenant;
      await ingestKeys.admit(tenant.id, request.headers.authorization);
      refuseOverLimit(tenant, ingestLimits.refuseEarly(tenant.id), 0);
      if (queue.overLimit) {
        throw overloaded('the collector queue is full');
      }
      // Admission by bytes: a body that says its size is admitted only if that much fits now.
      const declared = Number(request.headers['content-length']);
      if (!budget.fits(Number.isFinite(declared) ? Math.min(declared, config.maxBodyBytes) : 0)) {
        throw overloaded('the collector is reading as many request bodies as it can hold');
      }
    },
    handler: async (request, reply) => {
      const receivedAt = Date.now();
      const { body, wireBytes } = (request.body ?? { body: Buffer.alloc(0), wireBytes: 0 }) as ReadBody;
      if (body.length === 0) {
        throw new AppError('empty_body', 'the body is empty: send one JSON object, or JSON objects one per line');
      }
      const tenant = request.collectorTenant;
      if (!tenant) throw new Error('POST /log_sink: the onRequest hook resolves the tenant before the handler runs');
      const parsed = parseBody(body, { maxRecordBytes: config.maxRecordBytes });
      const { records, eventTimes, metas } = parsed;
      // Checked before anything is stored: a refused request leaves nothing behind.
      refuseOverLimit(tenant, ingestLimits.take(tenant.id, records.length, body.length), records.length);
      // The identity lets the scale-out record log store a retried request once (docs/scale.md,
      // scale); the forwarder learns from Idempotent-Replayed that its earlier attempt had landed.
      const appended = await queue.append(
        { tenantId: tenant.id, receivedAt, records, eventTimes, metas },
        parsed.bytes,
        {
          idempotencyKey: request.headers['idempotency-key'],
        },
      );
      metrics.collectorRecords.inc(records.length);
      diagnostics.accepted(tenant.id, senderOf(request), records.length, receivedAt);
      metrics.collectorBytes.inc({ stage: 'wire' }, wireBytes);
      metrics.collectorBytes.inc({ stage: 'decoded' }, body.length);
      if (appended.duplicate) reply.header('idempotent-replayed', 'true');
      return reply.code(201).send({ accepted: records.length });
    },
  });
});
