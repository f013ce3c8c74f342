// A fetch for the server's requests to addresses a tenant chose (single sign-on discovery, token
// exchange, keys and userinfo): https only (plain http only to loopback when the operator allows
// loopback), every address of the host checked by the outbound policy before any connection,
// and the connection made to the checked address (the TLS certificate is still verified against
// the host name). Redirects are not followed; answers are read up to a limit.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import {
  AddressRefused,
  bareHost,
  isLoopbackName,
  pinAddress,
  systemResolver,
  type OutboundPolicy,
  type Resolver,
} from './outbound-address.js';

const DEFAULT_MAX_BYTES = 1024 * 1024;

export interface PinnedFetchOptions {
  policy: OutboundPolicy;
  resolve?: Resolver;
  /** Answers longer than this fail (1 MiB by default). */
  maxBytes?: number;
}

export interface PinnedRequestInit {
  method?: string;
  headers?: ConstructorParameters<typeof Headers>[0];
  body?: string | URLSearchParams | Uint8Array | ArrayBuffer | ReadableStream | null;
  signal?: AbortSignal | null;
}

/** Refuses a URL whose scheme the policy does not allow: https, or http to loopback when allowed. */
export function checkScheme(url: URL, policy: OutboundPolicy): void {
  if (url.protocol === 'https:') return;
  const host = bareHost(url.hostname);
  const loopback = isLoopbackName(host) || (ipaddr.isValid(host) && ipaddr.process(host).range() === 'loopback');
  if (url.protocol === 'http:' && loopback && policy.allowLoopback) return;
  throw new AddressRefused(`${url.origin} is not https; plain http goes only to loopback, when the operator allows it`);
}

function bodyOf(body: PinnedRequestInit['body']): { bytes?: Buffer; type?: string } {
  if (body === undefined || body === null) return {};
  if (typeof body === 'string') return { bytes: Buffer.from(body) };
  if (body instanceof URLSearchParams)
    return { bytes: Buffer.from(body.toString()), type: 'application/x-www-form-urlencoded;charset=UTF-8' };
  if (body instanceof ReadableStream) throw new Error('a streamed request body is not supported');
  return { bytes: Buffer.from(body instanceof ArrayBuffer ? new Uint8Array(body) : body) };
}

/** A fetch bound to the policy: what openid-client's customFetch takes. */
export function pinnedFetch(options: PinnedFetchOptions) {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  return async (resource: string, init: PinnedRequestInit = {}): Promise<Response> => {
    const url = new URL(resource);
    checkScheme(url, options.policy);
    const address = await pinAddress(url, options.policy, options.resolve ?? systemResolver);
    const { bytes, type } = bodyOf(init.body);
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    if (type && headers['content-type'] === undefined) headers['content-type'] = type;
    if (bytes) headers['content-length'] = String(bytes.length);
    return send(url, address, { method: init.method ?? 'GET', headers, body: bytes, signal: init.signal, maxBytes });
  };
}

function send(
  url: URL,
  address: string,
  request: {
    method: string;
    headers: Record<string, string>;
    body: Buffer | undefined;
    signal: AbortSignal | null | undefined;
    maxBytes: number;
  },
): Promise<Response> {
  // Every name lookup of this connection answers the checked address: the pin.
  const lookup: LookupFunction = (_host, lookupOptions, callback) => {
    const family = address.includes(':') ? 6 : 4;
    if (lookupOptions.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const common = {
    method: request.method,
    headers: request.headers,
    lookup,
    agent: false as const,
    ...(request.signal ? { signal: request.signal } : {}),
  };
  return new Promise((resolve, reject) => {
    const outgoing = url.protocol === 'https:' ? https.request(url, common) : http.request(url, common);
    outgoing.on('response', (incoming) => {
      const chunks: Buffer[] = [];
      let read = 0;
      incoming.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > request.maxBytes) {
          incoming.destroy(new Error(`the answer from ${url.origin} is longer than ${request.maxBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      incoming.on('error', reject);
      incoming.on('end', () => {
        const status = incoming.statusCode ?? 0;
        const headers = new Headers();
        for (const [name, value] of Object.entries(incoming.headers)) {
          for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value])
            headers.append(name, one);
        }
        const empty = status === 204 || status === 304 || request.method === 'HEAD';
        try {
          resolve(new Response(empty ? null : Buffer.concat(chunks), { status, headers }));
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
    });
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}
