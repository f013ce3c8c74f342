// bench:api's scenarios: the requests it drives, each with the status and body it must answer.
import { generateToken } from '../../src/identity/tokens/token-format.js';

export interface Scenario {
  key: string;
  label: string;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  expect: number;
  /** Checks one response body before the load, so a scenario cannot measure the wrong answer. */
  check: (body: unknown) => string | undefined;
}

/** The calls measured: /healthz as the baseline, then /v1 with each kind of credentials. */
export function scenarios(token: string): Scenario[] {
  const bearer = { Authorization: `Bearer ${token}` };
  const isObject = (body: unknown): body is Record<string, unknown> => typeof body === 'object' && body !== null;
  const isMe = (body: unknown) =>
    isObject(body) && body.kind === 'token' ? undefined : `expected the token principal, got ${JSON.stringify(body)}`;
  return [
    {
      key: 'healthz',
      label: 'GET /healthz (baseline: no auth, no DB)',
      method: 'GET',
      path: '/healthz',
      headers: {},
      expect: 200,
      check: (body) => (isObject(body) && body.status === 'ok' ? undefined : `unexpected body ${JSON.stringify(body)}`),
    },
    {
      key: 'me_bearer',
      label: 'GET /v1/me, Bearer token',
      method: 'GET',
      path: '/v1/me',
      headers: bearer,
      expect: 200,
      check: isMe,
    },
    {
      key: 'me_basic',
      label: 'GET /v1/me, Basic (token as password)',
      method: 'GET',
      path: '/v1/me',
      headers: { Authorization: `Basic ${Buffer.from(`bench:${token}`).toString('base64')}` },
      expect: 200,
      check: isMe,
    },
    {
      key: 'tokens_list',
      label: 'GET /v1/tokens (auth + tenant list query)',
      method: 'GET',
      path: '/v1/tokens',
      headers: bearer,
      expect: 200,
      check: (body) =>
        isObject(body) && Array.isArray(body.tokens) && body.tokens.length === 1
          ? undefined
          : `expected one token, got ${JSON.stringify(body)}`,
    },
    {
      key: 'telemetry_search',
      label: 'POST /v1/telemetry/search, limit 50',
      method: 'POST',
      path: '/v1/telemetry/search',
      headers: { ...bearer, 'Content-Type': 'application/json' },
      body: JSON.stringify({ limit: 50 }),
      expect: 200,
      check: (body) =>
        isObject(body) && Array.isArray(body.records) && body.records.length === 50 ? undefined : 'expected 50 records',
    },
    {
      // Rejected before the limiter, hashing or any query: what the /v1 frame and a problem body cost.
      key: 'no_credentials',
      label: 'GET /v1/me, no credentials (401)',
      method: 'GET',
      path: '/v1/me',
      headers: {},
      expect: 401,
      check: (body) =>
        isObject(body) && body.code === 'unauthenticated'
          ? undefined
          : `expected unauthenticated, got ${JSON.stringify(body)}`,
    },
    {
      // Well-formed (prefix and checksum pass), so the server hashes it and looks it up.
      key: 'bad_token',
      label: 'GET /v1/me, unknown slt_ token (401)',
      method: 'GET',
      path: '/v1/me',
      headers: { Authorization: `Bearer ${generateToken()}` },
      expect: 401,
      check: (body) =>
        isObject(body) && body.code === 'invalid_credentials'
          ? undefined
          : `expected invalid_credentials, got ${JSON.stringify(body)}`,
    },
  ];
}
