// One delivery attempt: an HTTPS (or, to loopback when allowed, HTTP) POST of the CloudEvent to
// the subscription's URL, connected to the address the target policy checked for this attempt
// (the TLS certificate is still verified against the URL's host name), with a deadline covering
// connection, TLS and the answer. Redirects are not followed. At most 64 KiB of the answer is
// read and none of it is kept.
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import type { LookupFunction } from 'node:net';

const MAX_ANSWER_BYTES = 64 * 1024;

export interface AttemptResult {
  /** The receiver's status code; undefined when there was no answer. */
  status?: number;
  latencyMs: number;
  /** Why the attempt failed, when it did (no answer, or a non-2xx status). */
  error?: string;
}

export interface SenderOptions {
  timeoutMs: number;
  /** Extra trusted CA certificates (PEM), added to Node's bundled roots. */
  extraCa?: string;
}

export function sendAttempt(
  url: URL,
  address: string,
  body: string,
  headers: Record<string, string>,
  options: SenderOptions,
): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  // Every name lookup of this connection answers the checked address: the pin.
  const lookup: LookupFunction = (_host, lookupOptions, callback) => {
    const family = address.includes(':') ? 6 : 4;
    if (lookupOptions.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const common = {
    method: 'POST',
    headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
    lookup,
    agent: false as const,
    timeout: options.timeoutMs,
  };
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<AttemptResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve({ ...result, latencyMs: elapsed() });
    };
    const request =
      url.protocol === 'https:'
        ? https.request(url, {
            ...common,
            ...(options.extraCa ? { ca: [...tls.rootCertificates, options.extraCa] } : {}),
          })
        : http.request(url, common);
    const deadline = setTimeout(() => {
      finish({ error: `no answer within ${options.timeoutMs} ms` });
      request.destroy();
    }, options.timeoutMs);
    request.on('response', (response) => {
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_ANSWER_BYTES) response.destroy();
      });
      const status = response.statusCode ?? 0;
      const done = () =>
        finish(status >= 200 && status < 300 ? { status } : { status, error: `the receiver answered ${status}` });
      response.on('end', done);
      response.on('close', done);
      response.on('error', done);
    });
    // The receiver's name, never the address it resolved to: the log is the tenant's to read.
    request.on('error', (error) => finish({ error: error.message.replaceAll(address, url.hostname) }));
    request.end(body);
  });
}
