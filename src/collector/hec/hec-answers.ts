// HEC's answers: `{"text", "code"}` bodies with Splunk's status codes, which HEC clients read to
// decide whether to retry, fix their token or drop a batch. Every error of the HEC routes,
// including the shared intake's refusals (unknown address, ingest key, limits, memory), is
// turned into that shape here instead of an RFC 9457 problem (docs/collector.md, Splunk HEC).
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ProblemCode } from '../../core/errors.js';
import { LogThrottle, type ThrottledLog } from '../../observability/log-throttle.js';
import { databaseUnavailable } from '../../storage/storage-errors.js';

export interface HecAnswer {
  status: number;
  /** HEC's status code (0 success, 17 healthy, the rest errors). */
  code: number;
  text: string;
}

export const HEC_SUCCESS: HecAnswer = { status: 200, code: 0, text: 'Success' };
export const HEC_HEALTHY: HecAnswer = { status: 200, code: 17, text: 'HEC is healthy' };
export const HEC_QUEUES_FULL: HecAnswer = { status: 503, code: 18, text: 'HEC is unhealthy, queues are full' };

interface HecCode {
  code: number;
  text: string;
  /** Where HEC's status differs from the collector's own. */
  status?: number;
}

const SERVER_BUSY: HecCode = { code: 9, text: 'Server is busy' };
const INVALID_DATA_FORMAT: HecCode = { code: 6, text: 'Invalid data format' };

/** Splunk's code and text for the collector's errors; the status stays the collector's own. */
const HEC_CODES: Partial<Record<ProblemCode, HecCode>> = {
  ingest_key_required: { code: 2, text: 'Token is required' },
  // HEC answers a token it does not know 403, where the collector's own answer is 401.
  invalid_ingest_key: { code: 4, text: 'Invalid token', status: 403 },
  empty_body: { code: 5, text: 'No data' },
  hec_event_missing: { code: 12, text: 'Event field is required' },
  hec_event_blank: { code: 13, text: 'Event field cannot be blank' },
  hec_channel_missing: { code: 10, text: 'Data channel is missing' },
  hec_channel_invalid: { code: 11, text: 'Invalid data channel' },
  hec_query_token: { code: 16, text: 'Query string authorization is not enabled' },
  overloaded: SERVER_BUSY,
  rate_limited: SERVER_BUSY,
  storage_unavailable: SERVER_BUSY,
};

/** The body HEC clients read; `detail` says in the collector's words what was wrong. */
export function hecBody(answer: HecAnswer, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { text: answer.text, code: answer.code, ...extra };
}

/** The HEC answer for a collector error, with `invalid-event-number` when one event was at fault. */
export function hecErrorAnswer(error: AppError): { answer: HecAnswer; extra: Record<string, unknown> } {
  const known = HEC_CODES[error.code] ?? INVALID_DATA_FORMAT;
  const answer = { status: known.status ?? error.status, code: known.code, text: known.text };
  const extra: Record<string, unknown> = {};
  const eventNumber = error.extensions.event_number;
  if (typeof eventNumber === 'number') extra['invalid-event-number'] = eventNumber;
  extra.detail = error.detail;
  return { answer, extra };
}

/**
 * The HEC routes' errorHandler: the collector's errors in HEC's shape, keeping the headers they
 * carry (Retry-After, WWW-Authenticate). A storage fault is a 503 to retry, as elsewhere; any
 * other error is logged with the request id and answered as HEC's internal error.
 */
export function createHecErrorHandler(
  log: () => ThrottledLog,
): (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void {
  // Busy answers come in floods (every sender retries): one line per interval with a count.
  const unavailable = new LogThrottle(log);
  return (unknownError, request, reply) => {
    const error = unknownError instanceof AppError ? unknownError : databaseUnavailable(unknownError);
    if (!error) {
      // A framework client error (a bad query string): the request, not the server, is wrong.
      const status = unknownError.statusCode ?? 500;
      if (status < 500) {
        void reply.code(status).send(hecBody({ status, ...INVALID_DATA_FORMAT }, { detail: unknownError.message }));
        return;
      }
      request.log.error({ err: unknownError }, 'unhandled error');
      void reply
        .code(500)
        .send(hecBody({ status: 500, code: 8, text: 'Internal server error' }, { request_id: request.id }));
      return;
    }
    if (error.status === 503) unavailable.note(`answering 503 ${error.code}: ${error.detail}`, { code: error.code });
    else if (error.status >= 500 && !error.senderFault)
      request.log.error({ err: error, code: error.code }, error.detail);
    for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
    const { answer, extra } = hecErrorAnswer(error);
    void reply.code(answer.status).send(hecBody(answer, extra));
  };
}
