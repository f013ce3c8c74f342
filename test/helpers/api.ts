// Calling the /v1 API in tests: tenants and tokens seeded through the services (setup, not the
// subject), then every call under test made over real HTTP with a token or a session cookie.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TestServer } from './server.js';
import { createTenant, type Tenant } from '../../src/identity/tenant-service.js';
import { createToken } from '../../src/identity/token-service.js';
import { createUser } from '../../src/identity/user-service.js';
import { allPermissions, type Permission } from '../../src/identity/permissions.js';
import { cliActor } from '../../src/identity/principal.js';
import type { Role } from '../../src/storage/schema.js';

export interface ApiResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON when the body is JSON, else the text. */
  // Test bodies are inspected field by field; typing each response would only restate the schemas.
  body: any;
}

export interface ApiClient {
  request(
    method: string,
    path: string,
    options?: { body?: unknown; headers?: Record<string, string> },
  ): Promise<ApiResponse>;
  get(path: string, headers?: Record<string, string>): Promise<ApiResponse>;
  post(path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse>;
  patch(path: string, body: unknown, headers?: Record<string, string>): Promise<ApiResponse>;
  delete(path: string, headers?: Record<string, string>): Promise<ApiResponse>;
}

/** A client sending the given headers on every call (e.g. a Bearer token). */
export function apiClient(server: TestServer, fixed: Record<string, string> = {}): ApiClient {
  const request = async (
    method: string,
    path: string,
    options: { body?: unknown; headers?: Record<string, string> } = {},
  ) => {
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
    return {
      status: response.status,
      headers: response.headers,
      body: type.includes('json') && text ? JSON.parse(text) : text,
    };
  };
  return {
    request,
    get: (path, headers) => request('GET', path, headers ? { headers } : {}),
    post: (path, body, headers) =>
      request('POST', path, { ...(body !== undefined ? { body } : {}), ...(headers ? { headers } : {}) }),
    patch: (path, body, headers) => request('PATCH', path, { body, ...(headers ? { headers } : {}) }),
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
  const response = await apiClient(server).post('/v1/auth/login', { email: user.email, password });
  if (response.status !== 200) throw new Error(`sign-in failed: ${response.status} ${JSON.stringify(response.body)}`);
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0]!;
  return { client: apiClient(server, { cookie }), cookie, csrf: response.body.csrf_token as string };
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

/** Waits until the detection worker has processed every record in the log (/readyz says so). */
export async function detectionCaughtUp(server: TestServer, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ready = await apiClient(server).get('/readyz');
    if (ready.body.detection_lag_records === 0) return;
    if (Date.now() > deadline) assert.fail(`detection did not catch up: ${JSON.stringify(ready.body)}`);
    await sleep(50);
  }
}

/** Asserts a problem answer (status, problem+json, code) and returns its body. */
export function expectProblem(
  response: { status: number; headers: Headers; body: Record<string, unknown> },
  status: number,
  code: string,
): Record<string, unknown> {
  assert.equal(response.status, status, JSON.stringify(response.body));
  assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(response.body.code, code);
  return response.body;
}
