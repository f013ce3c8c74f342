// The Elasticsearch bulk API on the collector address (docs/collector.md, Elasticsearch bulk):
// Beats, Logstash, Fluent Bit's `es` output and Vector's `elasticsearch` sink send here as to a
// cluster. `POST /_bulk` stores each document as a record through the shared intake; the probes
// shippers make at start get canned answers; every answer and error is in Elasticsearch's shape.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { AppError } from '../../core/errors.js';
import { checkMediaType } from '../intake/body.js';
import type { CollectorDependencies, Intake } from '../intake/intake.js';
import { parseBulkBody, type BulkItem } from './bulk-body.js';
import { cannedEndpoints, ELASTIC_PRODUCT_HEADER, esContentType } from './es-answers.js';
import { esError, esErrorHandler } from './es-errors.js';

const ALL_METHODS = ['DELETE', 'GET', 'HEAD', 'PATCH', 'POST', 'PUT', 'OPTIONS'] as const;

/** Registers the bulk API and the endpoints shippers probe, on collector addresses only. */
export function registerBulkIntake(app: FastifyInstance, intake: Intake, deps: CollectorDependencies): void {
  const shared = {
    // The API claims `/` and `/{index}`: on any other host they stay the web UI's.
    constraints: { host: deps.tenants.addressPattern() },
    onRequest: intake.admit({ authorization: apiKeyAsBearer }),
    onSend: async (_request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      reply.header(ELASTIC_PRODUCT_HEADER, 'Elasticsearch');
      return payload;
    },
    errorHandler: esErrorHandler,
    config: { collectorMediaTypes: checkEsMediaType },
  } satisfies Partial<RouteOptions>;

  const bulk = async (request: FastifyRequest, reply: FastifyReply) => {
    const receivedAt = Date.now();
    const { body } = intake.bodyOf(request);
    const { index } = request.params as { index?: string };
    const { stored, items } = parseBulkBody(body, { maxRecordBytes: deps.config.maxRecordBytes }, index);
    // Items refused are answered beside the stored ones; a request with none to store stores nothing.
    if (stored.records.length > 0) await intake.store(request, reply, stored, { receivedAt, protocol: 'bulk' });
    return sendJson(reply, 200, bulkAnswer(items, Date.now() - receivedAt));
  };
  for (const url of ['/_bulk', '/:index/_bulk']) app.route({ ...shared, method: ['POST', 'PUT'], url, handler: bulk });

  for (const endpoint of cannedEndpoints) {
    app.route({
      ...shared,
      method: endpoint.methods,
      url: endpoint.url,
      handler: async (request, reply) =>
        sendJson(
          reply,
          200,
          endpoint.answer(intake.tenantOf(request).codeName, request.params as Record<string, string>),
        ),
    });
  }

  // Any other path on a collector address: Elasticsearch's 404, not the API's problem body.
  app.route({
    ...shared,
    method: [...ALL_METHODS],
    url: '/*',
    exposeHeadRoute: false,
    handler: async (request, reply) => {
      const path = request.url.split('?')[0] ?? '/';
      // A path the server has under other methods (GET /log_sink) keeps its 405 with Allow.
      if (ALL_METHODS.some((method) => app.hasRoute({ method, url: path }))) {
        reply.callNotFound();
        return reply;
      }
      const reason = `no handler found for uri [${path}] and method [${request.method}]`;
      return sendJson(reply, 404, esError(404, 'resource_not_found_exception', reason));
    },
  });
}

function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply.code(status).type(esContentType(reply.request)).send(JSON.stringify(body));
}

/** The bulk answer: one item per action, in order, as Elasticsearch writes them. */
export function bulkAnswer(items: BulkItem[], took: number) {
  return {
    took,
    errors: items.some((item) => item.error !== undefined),
    items: items.map((item, position) => ({
      [item.action]: item.error
        ? { _index: item.index, _id: item.id, status: 400, error: item.error }
        : {
            _index: item.index,
            _id: item.id,
            _version: 1,
            result: 'created',
            _shards: { total: 1, successful: 1, failed: 0 },
            // Records have no sequence numbers: the item's position stands in for one.
            _seq_no: position,
            _primary_term: 1,
            status: 201,
          },
    })),
  };
}

/**
 * An Elasticsearch API key (`ApiKey base64(id:key)`, as Beats and Logstash send `api_key`) is the
 * ingest key; the id is not checked. Any other Authorization goes to the key gate as it is.
 */
export function apiKeyAsBearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  const apiKey = /^ApiKey\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
  if (apiKey === undefined) return header;
  const decoded = Buffer.from(apiKey, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return `Bearer ${colon === -1 ? apiKey : decoded.slice(colon + 1)}`;
}

const ES_MEDIA_TYPE = /^application\/vnd\.elasticsearch\+(?:x-ndjson|json)$/;

/** JSON and NDJSON, and the versioned types the official clients send (`…; compatible-with=8`). */
function checkEsMediaType(headers: IncomingHttpHeaders): void {
  const header = headers['content-type'];
  const [essence = '', ...parameters] = (header ?? '').split(';').map((part) => part.trim().toLowerCase());
  if (!ES_MEDIA_TYPE.test(essence)) {
    checkMediaType(headers);
    return;
  }
  for (const parameter of parameters) {
    if (/^compatible-with=\d+$/.test(parameter) || /^charset="?utf-?8"?$/.test(parameter)) continue;
    throw new AppError('unsupported_media_type', `Content-Type ${JSON.stringify(header)} is not accepted`);
  }
}
