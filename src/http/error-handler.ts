// Maps every error to an RFC 9457 problem body. AppErrors carry their catalogue code; Fastify's
// own client errors (4xx) become `invalid_request`; a storage fault (the database locked, its
// disk full, its server unreachable) is a 503 to retry; anything else is logged with the request
// id and answered as a masked 500, so internals never reach a client.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errorMessage, toProblem } from '../core/errors.js';
import { LogThrottle } from '../observability/log-throttle.js';
import type { MethodIndex } from './method-not-allowed.js';
import { describeProblem, fieldProblems } from './validation-messages.js';
import { databaseUnavailable } from '../storage/storage-errors.js';

export function sendProblem(reply: FastifyReply, error: AppError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply
    .code(error.status)
    .type('application/problem+json')
    .send(JSON.stringify(toProblem(error, reply.request.url)));
}

/** Answers a request no route matched, when it is a page of the web UI; else returns undefined. */
export type PageFallback = (request: FastifyRequest, reply: FastifyReply) => FastifyReply | undefined;

export function installErrorHandling(app: FastifyInstance, pageFallback?: PageFallback, methods?: MethodIndex): void {
  // Back-pressure and storage 503s come in floods (every sender retries): one line per
  // interval with a count, never a stack per request.
  const unavailable = new LogThrottle(() => app.log);
  app.setErrorHandler((unknownError: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const error = unknownError instanceof AppError ? unknownError : (databaseUnavailable(unknownError) ?? unknownError);
    if (error instanceof AppError) {
      if (error.status === 503)
        unavailable.note(`answering 503 ${error.code}: ${error.detail}`, {
          code: error.code,
          ...error.extensions,
          ...(error.cause === undefined ? {} : { cause: errorMessage(error.cause) }),
        });
      else if (error.status >= 500 && !error.senderFault)
        request.log.error({ err: error, cause: error.cause, code: error.code }, error.detail);
      return sendProblem(reply, error);
    }
    const status = error.statusCode ?? 500;
    if (error.validation && error.validationContext) {
      const problems = fieldProblems(error.validation, error.validationContext);
      return sendProblem(
        reply,
        new AppError('invalid_request', problems.map(describeProblem).join('; '), { extensions: { errors: problems } }),
      );
    }
    if (status >= 400 && status < 500) {
      const code =
        status === 404
          ? 'not_found'
          : status === 413
            ? 'body_too_large'
            : status === 415
              ? 'unsupported_media_type'
              : 'invalid_request';
      return sendProblem(reply, new AppError(code, error.message));
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendProblem(
      reply,
      new AppError('internal_error', `an unexpected error occurred; quote request id ${request.id} when reporting it`, {
        extensions: { request_id: request.id },
      }),
    );
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    const allowed = methods?.allowed(request) ?? [];
    if (allowed.length > 0) {
      return sendProblem(
        reply,
        new AppError('method_not_allowed', `${path} does not take ${request.method}; it takes ${allowed.join(', ')}`, {
          headers: { Allow: allowed.join(', ') },
          extensions: { allowed_methods: allowed },
        }),
      );
    }
    return (
      pageFallback?.(request, reply) ??
      sendProblem(reply, new AppError('not_found', `no route ${request.method} ${path}`))
    );
  });
}
