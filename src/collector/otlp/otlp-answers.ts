// How the OTLP intake answers, as OTLP/HTTP prescribes: in the request's own encoding (protobuf
// or JSON), success as an ExportLogsServiceResponse, and every failure (the shared intake's
// refusals included) as a google.rpc.Status with the HTTP status OTLP clients act on: they
// retry 429 and 503 after Retry-After, and drop the batch on the other 4xx.
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../core/errors.js';
import { databaseUnavailable } from '../../storage/storage-errors.js';
import { encodeExportResponse, encodeStatus } from './otlp-protobuf.js';

export type OtlpEncoding = 'protobuf' | 'json';

const MEDIA_TYPES: Record<string, OtlpEncoding> = {
  'application/x-protobuf': 'protobuf',
  'application/json': 'json',
};
const CONTENT_TYPES: Record<OtlpEncoding, string> = {
  protobuf: 'application/x-protobuf',
  json: 'application/json',
};

const essenceOf = (headers: IncomingHttpHeaders) =>
  (headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';

/** The request's encoding; throws 415 for any other media type (checked before the body is read). */
export function otlpEncoding(headers: IncomingHttpHeaders): OtlpEncoding {
  const encoding = MEDIA_TYPES[essenceOf(headers)];
  if (encoding) return encoding;
  throw new AppError(
    'unsupported_media_type',
    `Content-Type ${JSON.stringify(headers['content-type'] ?? '')} is not accepted; OTLP/HTTP sends application/x-protobuf or application/json`,
    { extensions: { accepted: Object.keys(MEDIA_TYPES) } },
  );
}

/** 200 with the ExportLogsServiceResponse: empty, or the partial success when records were refused. */
export function sendExportResponse(
  reply: FastifyReply,
  encoding: OtlpEncoding,
  rejected: number,
  errorMessage: string,
): FastifyReply {
  reply.code(200).type(CONTENT_TYPES[encoding]);
  if (encoding === 'protobuf') return reply.send(encodeExportResponse(rejected, errorMessage));
  // OTLP/JSON writes 64-bit integers as strings.
  const partialSuccess = { rejectedLogRecords: String(rejected), errorMessage };
  return reply.send(JSON.stringify(rejected > 0 ? { partialSuccess } : {}));
}

/** google.rpc.Code for an HTTP status, as gRPC's own HTTP mapping pairs them. */
function rpcCode(status: number): number {
  const codes: Record<number, number> = { 400: 3, 401: 16, 403: 7, 404: 5, 408: 4, 413: 8, 415: 3, 429: 8, 503: 14 };
  return codes[status] ?? (status >= 500 ? 13 : 2);
}

/**
 * The route's error handler: each error becomes an AppError (as the API's handler decides them),
 * answered as a Status in the request's encoding, JSON when it has none the intake speaks. The
 * scope's onError hook has already counted it for the metrics and the tenant's diagnostics.
 */
export function otlpErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const refusal = asAppError(error, request);
  for (const [name, value] of Object.entries(refusal.headers)) reply.header(name, value);
  const message = `${refusal.code}: ${refusal.detail}`;
  const encoding = MEDIA_TYPES[essenceOf(request.headers)] ?? 'json';
  reply.code(refusal.status).type(CONTENT_TYPES[encoding]);
  const code = rpcCode(refusal.status);
  void reply.send(encoding === 'protobuf' ? encodeStatus(code, message) : JSON.stringify({ code, message }));
}

function asAppError(error: FastifyError, request: FastifyRequest): AppError {
  const known = error instanceof AppError ? error : databaseUnavailable(error);
  if (known) {
    // 503s come in floods while senders retry: the metrics count them, the log does not.
    if (known.status >= 500 && known.status !== 503 && !known.senderFault) {
      request.log.error({ err: known, cause: known.cause, code: known.code }, known.detail);
    }
    return known;
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    const code = status === 413 ? 'body_too_large' : status === 415 ? 'unsupported_media_type' : 'invalid_request';
    return new AppError(code, error.message);
  }
  request.log.error({ err: error }, 'unhandled error');
  return new AppError(
    'internal_error',
    `an unexpected error occurred; quote request id ${request.id} when reporting it`,
  );
}
