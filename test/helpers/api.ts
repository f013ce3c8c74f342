// Calling the /v1 API in tests: tenants and tokens seeded through the services (setup, not the
// subject), then every call under test made over real HTTP with a token or a session cookie.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TestServer } from './server.js';
import type { Readiness } from './responses.js';
import { createTenant, type Tenant } from '../../src/identity/tenants/tenant-service.js';
import { createToken } from '../../src/identity/tokens/token-service.js';
import { createUser } from '../../src/identity/users/user-service.js';
import { allPermissions, type Permission } from '../../src/identity/permissions.js';
import { cliActor } from '../../src/identity/principal.js';
import type { Role } from '../../src/storage/schema.js';

/**
 * One answer. `body` is the parsed JSON when the body is JSON, else the text. Its type is the shape
 * the caller says it asserts on (`client.get<CaseView>(…)`, `expectProblem(…)` for problems): the
 * helper does not check it, the test's assertions do. A caller that names no shape gets `unknown`.
 */
export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

/** An RFC 9457 problem body as the API sends it: the catalogue code, and any extension members. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  [extension: string]: unknown;
}

export interface ApiClient {
  request<T = unknown>(
    method: string,
    path: string,
    options?: { body?: unknown; headers?: Record<string, string> },
  ): Promise<ApiResponse<T>>;
  get<T = unknown>(path: string, headers?: Record<string, string>): Promise<ApiResponse<T>>;
  post<T = unknown>(path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse<T>>;
  patch<T = unknown>(path: string, body: unknown, headers?: Record<string, string>): Promise<ApiResponse<T>>;
  put<T = unknown>(path: string, body: unknown, headers?: Record<string, string>): Promise<ApiResponse<T>>;
  delete<T = unknown>(path: string, headers?: Record<string, string>): Promise<ApiResponse<T>>;
}

/** A client sending the given headers on every call (e.g. a Bearer token). */
export function apiClient(server: TestServer, fixed: Record<string, string> = {}): ApiClient {
  const request = async <T>(
    method: string,
    path: string,
    options: { body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<ApiResponse<T>> => {
    const headers: Record<string, string> = { ...fixed, ...options.headers };
    if (options.body !== undefined) headers['content-type'] ??= 'application/json';
    const response = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers,
      ...(options.body !== undefined
        ? { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }
        : {}),
    });
    const text = await response.text();
    const type = response.headers.get('content-type') ?? '';
    // The caller's claim about the shape, unchecked (see ApiResponse).
    const body = (type.includes('json') && text ? JSON.parse(text) : text) as T;
    return { status: response.status, headers: response.headers, body };
  };
  return {
    request,
    get: (path, headers) => request('GET', path, headers ? { headers } : {}),
    post: (path, body, headers) =>
      request('POST', path, { ...(body !== undefined ? { body } : {}), ...(headers ? { headers } : {}) }),
    patch: (path, body, headers) => request('PATCH', path, { body, ...(headers ? { headers } : {}) }),
    put: (path, body, headers) => request('PUT', path, { body, ...(headers ? { headers } : {}) }),
    delete: (path, headers) => request('DELETE', path, headers ? { headers } : {}),
  };
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

export function basic(token: string, username = 'anyone'): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${username}:${token}`).toString('base64')}` };
}

export async function seedTenant(server: TestServer, codeName: string): Promise<Tenant> {
  return createTenant(server.sightline.database.db, { codeName, name: `${codeName} display name` });
}

/** Issues a token for the tenant, as the CLI would; returns its value and id. */
export async function issueToken(
  server: TestServer,
  tenant: Tenant,
  permissions: readonly Permission[] = allPermissions,
  options: { name?: string; expiresAt?: number } = {},
): Promise<{ value: string; id: string }> {
  const { token, value } = await createToken(server.sightline.database.db, {
    tenantId: tenant.id,
    name: options.name ?? `test token (${permissions.length} permissions)`,
    permissions: [...permissions],
    expiresAt: options.expiresAt ?? null,
    creator: { actor: cliActor, userId: null, permissions: new Set(allPermissions), expiresAt: null },
    lifetime: { defaultMs: 30 * 86_400_000, maxMs: null },
  });
  return { value, id: token.id };
}

export interface Session {
  client: ApiClient;
  cookie: string;
  csrf: string;
}

/** Creates a user and signs in over HTTP; the client sends the cookie (not the CSRF token). */
export async function signIn(
  server: TestServer,
  user: { tenant: Tenant | null; role: Role; email: string; password?: string },
): Promise<Session> {
  const password = user.password ?? 'a long enough test password';
  await createUser(server.sightline.database.db, {
    tenantId: user.tenant?.id ?? null,
    email: user.email,
    role: user.role,
    password,
    actor: cliActor,
  });
  const response = await apiClient(server).post<{ csrf_token: string }>('/v1/auth/login', {
    email: user.email,
    password,
  });
  if (response.status !== 200) throw new Error(`sign-in failed: ${response.status} ${JSON.stringify(response.body)}`);
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0]!;
  return { client: apiClient(server, { cookie }), cookie, csrf: response.body.csrf_token };
}

/**
 * Posts NDJSON lines (objects, or raw JSON text) to a tenant's collector, at its address
 * `<codeName>-collector.<domain>` (the server's base domain: localhost unless the test set one);
 * the test fails unless they are stored (201).
 */
export async function ingest(
  server: TestServer,
  lines: (Record<string, unknown> | string)[],
  codeName = 'acme',
  domain = 'localhost',
): Promise<void> {
  const body = lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n') + '\n';
  const response = await server.post(body, {
    'content-type': 'application/x-ndjson',
    host: `${codeName}-collector.${domain}`,
  });
  assert.equal(response.status, 201, await response.text());
}

/** Waits until the detection thread has processed every record in the log (/readyz says so). */
export async function detectionCaughtUp(server: TestServer, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ready = await apiClient(server).get<Readiness>('/readyz');
    if (ready.body.detection_lag_records === 0) return;
    if (Date.now() > deadline) assert.fail(`detection did not catch up: ${JSON.stringify(ready.body)}`);
    await sleep(50);
  }
}

/** Asserts a problem answer (status, problem+json, code) and returns its body. */
export function expectProblem(response: ApiResponse, status: number, code: string): Problem {
  assert.equal(response.status, status, JSON.stringify(response.body));
  assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/);
  const body = problemBody(response);
  assert.equal(body.code, code);
  return body;
}

/**
 * A response's body read as a problem, to assert on its members: fails unless it is a JSON
 * object. (Whether it is the expected problem is the caller's assertion, e.g. on `code`.)
 */
export function problemBody(response: ApiResponse): Problem {
  const { body } = response;
  assert.ok(
    typeof body === 'object' && body !== null && !Array.isArray(body),
    `not a JSON object: ${JSON.stringify(body)}`,
  );
  return body as Problem;
}
