// Answers what the HTTP parser rejects before any route sees it — malformed framing (a bad
// Content-Length, invalid characters), headers or a URL past the size limit, a request that did
// not arrive in time — with a problem body and a stable code like every other error, says
// `Connection: close` because the connection cannot be reused after it, and counts it.
import http from 'node:http';
import type { Socket } from 'node:net';
import { problemType, problems, type ProblemCode } from '../core/errors.js';

type ClientErrorCode = Extract<ProblemCode, 'malformed_request' | 'headers_too_large' | 'request_timeout'>;

/** The parser's error codes (llhttp's HPE_*, Node's ERR_HTTP_*) that get their own answer. */
function classify(error: NodeJS.ErrnoException): { code: ClientErrorCode; detail: string } {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        code: 'headers_too_large',
        detail: `the request line and headers exceed ${http.maxHeaderSize} bytes; shorten the URL or the headers`,
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return { code: 'request_timeout', detail: 'the request did not arrive in time; the connection is closed' };
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return { code: 'malformed_request', detail: 'the Content-Length header is not a valid length' };
    default:
      return {
        code: 'malformed_request',
        detail: `the request is not valid HTTP/1.1 (${error.code ?? 'parse error'}: ${error.message})`,
      };
  }
}

/** Called once per rejected request, with its problem code. */
export type ClientErrorObserver = (code: ClientErrorCode, error: NodeJS.ErrnoException) => void;

/** Fastify's clientErrorHandler: writes the problem and closes the connection after it is flushed. */
export function clientErrorHandler(observe: ClientErrorObserver) {
  return (error: NodeJS.ErrnoException, socket: Socket): void => {
    // A reset connection has nobody left to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const { code, detail } = classify(error);
    observe(code, error);
    const { status, title } = problems[code];
    const body = JSON.stringify({ type: problemType(code), title, status, detail, code });
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    // end() flushes the answer before the FIN, so the client reads it instead of a reset.
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? title}\r\n` +
        'Content-Type: application/problem+json\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  };
}
