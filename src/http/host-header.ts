// The Host header names the tenant of a collector request, so it must be unambiguous: HTTP/1.1
// requires a server to refuse a request with more than one Host header, or with none (RFC 9112,
// section 3.2). Node keeps only the first of several, which would file records under whichever
// tenant happened to come first. A request target in absolute form (`POST http://host/log_sink`)
// names its host itself and the Host header is then ignored (section 3.2.2): the target's
// authority replaces it, so the request reaches the host it names. This runs before any route.
import type { IncomingMessage } from 'node:http';
import { AppError } from '../core/errors.js';

const ABSOLUTE_FORM = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * Why the request's Host is not exactly one, if it is not. An absolute-form target's authority
 * is written into the Host header here, so everything after sees the host the request names.
 */
export function hostHeaderProblem(request: IncomingMessage): AppError | undefined {
  let hosts = 0;
  const raw = request.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]?.toLowerCase() === 'host') hosts++;
  if (hosts > 1)
    return new AppError(
      'malformed_request',
      `the request has ${hosts} Host headers; HTTP/1.1 allows exactly one (a forwarder setting Host as an extra header sends two)`,
    );
  const target = request.url ?? '';
  if (ABSOLUTE_FORM.test(target)) {
    let authority: string;
    try {
      authority = new URL(target).host;
    } catch {
      return new AppError('malformed_request', 'the request target is not a valid absolute URL');
    }
    if (authority === '') return new AppError('malformed_request', 'the absolute request target names no host');
    request.headers.host = authority;
    return undefined;
  }
  if (hosts === 0 && request.httpVersionMajor === 1 && request.httpVersionMinor >= 1)
    return new AppError('malformed_request', 'an HTTP/1.1 request must have a Host header');
  return undefined;
}
