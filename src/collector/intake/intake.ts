// What every intake protocol of the collector shares (`/log_sink`, and the OTLP, HEC and bulk
// intakes beside it): the tenant from the Host header, its ingest key and limits checked before
// the body is read, the body read within the collector's memory budget, and records stored
// all-or-nothing, answered only once durable, counted in metrics and the tenant's diagnostics.
// A protocol adds its own parsing, answers and error shapes; nothing of the path to storage.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config/config.js';
import type { RecordQueue } from '../../record-log/record-log.js';
import type { Metrics } from '../../observability/metrics.js';
import { AppError, overloaded } from '../../core/errors.js';
import { BodyBudget, checkMediaType, readBody, type ReadBody } from './body.js';
import type { ParsedBody } from './parse.js';
import type { CollectorTenant, CollectorTenants } from './tenant-routing.js';
import type { CollectorDiagnostics } from '../diagnostics/collector-diagnostics.js';
import { ingestKeyRefusal, type IngestKeyGate } from '../ingest-keys/ingest-key-gate.js';
import type { IngestLimiter } from '../ingest-limits/ingest-limiter.js';

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

declare module 'fastify' {
  interface FastifyRequest {
    collectorTenant?: CollectorTenant;
    /** Bytes of this request's body held against the collector's body budget. */
    heldBodyBytes: number;
  }
  interface FastifyContextConfig {
    /** A collector route's media types, checked before its body is read (default: JSON and NDJSON). */
    collectorMediaTypes?: (headers: FastifyRequest['headers']) => void;
  }
}

export interface AdmitOptions {
  /** The ingest key as an `Authorization` value the key gate reads (`Bearer …`, `Basic …`). */
  authorization?: (request: FastifyRequest) => string | undefined;
}

/** The protocols the collector speaks, as metrics and diagnostics name them. */
export type IntakeProtocol = 'log_sink' | 'otlp' | 'hec' | 'bulk';

export interface StoreOptions {
  /** When the body had been read: the records' receive time. */
  receivedAt: number;
  protocol: IntakeProtocol;
}

export interface Intake {
  /** An onRequest hook: refuses before any body is read (unknown address, key, limits, memory). */
  admit(options?: AdmitOptions): (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  /** The request's tenant, as the admit hook resolved it. */
  tenantOf(request: FastifyRequest): CollectorTenant;
  /** The decoded body the collector's content parser read. */
  bodyOf(request: FastifyRequest): ReadBody;
  /**
   * Stores the records of one request all-or-nothing; resolves once they are durable.
   */
  store(
    request: FastifyRequest,
    reply: FastifyReply,
    parsed: ParsedBody,
    stored: StoreOptions,
  ): Promise<{ duplicate: boolean }>;
}

/**
 * Who sent a request, as the diagnostics name senders. A client that hung up before the answer
 * has no socket address left to read (Node gives undefined despite the type): it is named unknown.
 */
const senderOf = (request: FastifyRequest) => ({
  userAgent: request.headers['user-agent'] ?? '',
  address: (request.ip as string | undefined) ?? 'unknown',
});

/** Installs the body reader and the refusal counting on the collector's scope, and returns the intake. */
export function createIntake(app: FastifyInstance, deps: CollectorDependencies): Intake {
  const { config, tenants, queue, metrics, diagnostics, ingestKeys, ingestLimits } = deps;
  const budget = new BodyBudget(config.maxInflightBytes);
  app.decorateRequest('heldBodyBytes', 0);

  // The collector reads its own bodies: any media type its route accepts, compressed or not.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', async (request: FastifyRequest) => {
    (request.routeOptions.config.collectorMediaTypes ?? checkMediaType)(request.headers);
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

  /** Throws a limit's refusal, counted for the tenant; `records` is 0 when the body was not read. */
  const refuseOverLimit = (tenant: CollectorTenant, refusal: AppError | undefined, records: number) => {
    if (!refusal) return;
    metrics.collectorRateLimitedRequests.inc({ tenant: tenant.codeName });
    metrics.collectorRateLimitedRecords.inc({ tenant: tenant.codeName }, records);
    throw refusal;
  };

  const tenantOf = (request: FastifyRequest): CollectorTenant => {
    if (!request.collectorTenant) throw new Error('a collector route runs the admit hook before its handler');
    return request.collectorTenant;
  };

  return {
    admit:
      (options = {}) =>
      async (request, reply) => {
        // The body is released when the response is done, whichever way it ends.
        reply.raw.once('close', () => {
          budget.release(request.heldBodyBytes);
          request.heldBodyBytes = 0;
          metrics.collectorBodyBytes.set(budget.bytesInUse);
        });
        // Reject early, before reading a body for a collector that does not exist, needs a key
        // the request lacks, or is full: the answer costs no memory and no waiting. An unknown
        // address gets the answer a keyed tenant gives a request without a valid key.
        const authorization = options.authorization ? options.authorization(request) : request.headers.authorization;
        const tenant = await tenants.find(request.headers.host);
        if (!tenant) throw ingestKeyRefusal(authorization);
        request.collectorTenant = tenant;
        await ingestKeys.admit(tenant.id, authorization);
        refuseOverLimit(tenant, ingestLimits.refuseEarly(tenant.id), 0);
        if (queue.overLimit) throw overloaded('the collector queue is full');
        // Admission by bytes: a body that says its size is admitted only if that much fits now.
        const declared = Number(request.headers['content-length']);
        if (!budget.fits(Number.isFinite(declared) ? Math.min(declared, config.maxBodyBytes) : 0)) {
          throw overloaded('the collector is reading as many request bodies as it can hold');
        }
      },
    tenantOf,
    bodyOf: (request) => (request.body ?? { body: Buffer.alloc(0), wireBytes: 0 }) as ReadBody,
    store: async (request, reply, parsed, { receivedAt, protocol }) => {
      const tenant = tenantOf(request);
      const { records, eventTimes, metas } = parsed;
      const { body, wireBytes } = (request.body ?? { body: Buffer.alloc(0), wireBytes: 0 }) as ReadBody;
      // Checked before anything is stored: a refused request leaves nothing behind.
      refuseOverLimit(tenant, ingestLimits.take(tenant.id, records.length, body.length), records.length);
      // The identity lets the scale-out record log store a retried request once (docs/scale.md);
      // the sender learns from Idempotent-Replayed that its earlier attempt had landed.
      const appended = await queue.append(
        { tenantId: tenant.id, receivedAt, records, eventTimes, metas },
        parsed.bytes,
        {
          idempotencyKey: request.headers['idempotency-key'],
        },
      );
      metrics.collectorRecords.inc(records.length);
      diagnostics.accepted(tenant.id, { ...senderOf(request), protocol }, records.length, receivedAt);
      metrics.collectorBytes.inc({ stage: 'wire' }, wireBytes);
      metrics.collectorBytes.inc({ stage: 'decoded' }, body.length);
      if (appended.duplicate) reply.header('idempotent-replayed', 'true');
      return { duplicate: appended.duplicate };
    },
  };
}
