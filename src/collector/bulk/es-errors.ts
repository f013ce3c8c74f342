// Errors of the Elasticsearch-compatible endpoints, in Elasticsearch's shape
// (`{"error": {"root_cause", "type", "reason"}, "status"}`) instead of a problem body: shippers
// read `error.type` and the status to decide whether to retry (docs/collector.md, Elasticsearch bulk).
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ProblemCode } from '../../core/errors.js';
import { databaseUnavailable } from '../../storage/storage-errors.js';
import { INGEST_KEY_CHALLENGE } from '../ingest-keys/ingest-key-gate.js';
import { ELASTIC_PRODUCT_HEADER, esContentType } from './es-answers.js';

/** Elasticsearch's exception type for each refusal the shared intake can throw. */
const ES_TYPES: Partial<Record<ProblemCode, string>> = {
  ingest_key_required: 'security_exception',
  invalid_ingest_key: 'security_exception',
  rate_limited: 'es_rejected_execution_exception',
  overloaded: 'es_rejected_execution_exception',
  storage_unavailable: 'unavailable_shards_exception',
  empty_body: 'action_request_validation_exception',
  unsupported_media_type: 'media_type_header_exception',
  unsupported_content_encoding: 'illegal_argument_exception',
  body_too_large: 'content_too_long_exception',
  request_exceeds_burst: 'content_too_long_exception',
  not_found: 'resource_not_found_exception',
};

export interface EsError {
  error: { root_cause: { type: string; reason: string }[]; type: string; reason: string };
  status: number;
}

export function esError(status: number, type: string, reason: string): EsError {
  return { error: { root_cause: [{ type, reason }], type, reason }, status };
}

/** Answers an error thrown by an Elasticsearch-compatible route (Fastify's per-route errorHandler). */
export function esErrorHandler(thrown: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const error = thrown instanceof AppError ? thrown : (databaseUnavailable(thrown) ?? thrown);
  if (error instanceof AppError) {
    if (error.status >= 500 && error.status !== 503 && !error.senderFault)
      request.log.error({ err: error, code: error.code }, error.detail);
    for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
    // Elasticsearch names the API key scheme too; the Beats and Logstash send it.
    if (error.status === 401) reply.header('WWW-Authenticate', `${INGEST_KEY_CHALLENGE}, ApiKey`);
    const type = ES_TYPES[error.code] ?? (error.status < 500 ? 'illegal_argument_exception' : 'exception');
    send(reply, esError(error.status, type, error.detail));
    return;
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    send(reply, esError(status, 'illegal_argument_exception', error.message));
    return;
  }
  request.log.error({ err: error }, 'unhandled error');
  send(reply, esError(500, 'exception', `an unexpected error occurred; quote request id ${request.id}`));
}

function send(reply: FastifyReply, body: EsError): void {
  void reply
    .code(body.status)
    .header(ELASTIC_PRODUCT_HEADER, 'Elasticsearch')
    .type(esContentType(reply.request))
    .send(JSON.stringify(body));
}
