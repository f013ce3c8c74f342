// The edges of the API frame, on SQLite and PostgreSQL: input that must be a 400 and never a
// 500 (unknown fields, NUL characters, cursors that are not the API's, times that name no
// instant), tokens that cannot outlive or out-grant their creator, CSRF on every unsafe method,
// sessions that end, and the failed-attempt limit under a concurrent burst and stale credentials.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { databaseTargets, tempDir, type TestDatabase } from '../helpers/databases.js';
import { startServer, type TestServer } from '../helpers/server.js';
import {
  apiClient,
  bearer,
  issueToken,
  problemBody,
  seedTenant,
  signIn,
  type ApiClient,
  type ApiResponse,
  type Problem,
} from '../helpers/api.js';
import type { Page } from '../helpers/responses.js';
import type { ApiToken } from '../../src/identity/tokens/token-service.js';
import { freePort, spawnSightline, stopChild, waitReady } from '../helpers/processes.js';
import type { Tenant } from '../../src/identity/tenants/tenant-service.js';

for (const target of databaseTargets) {
  describe(`API hardening on ${target.kind}`, { skip: target.skip }, () => {
    let database: TestDatabase;
    let server: TestServer;
    let acme: Tenant;
    let admin: ApiClient;

    before(async () => {
      database = await target.create();
      server = await startServer(database, { authMaxFailures: 1000 });
      acme = await seedTenant(server, 'acme');
      admin = apiClient(server, bearer((await issueToken(server, acme)).value));
    });
    after(async () => {
      await server.close();
      await database.cleanup();
    });

    test('bad input answers 400 naming what was wrong, never 500, and creates nothing', async () => {
      const before = (await admin.get<Page<'tokens', ApiToken>>('/v1/tokens?limit=500')).body.tokens.length;
      const cases: [string, () => Promise<ApiResponse>, string][] = [
        [
          'misspelt field',
          () =>
            admin.post('/v1/tokens', { name: 'typo', permissions: ['cases:read'], expiresAt: '2027-01-01T00:00:00Z' }),
          'invalid_request',
        ],
        [
          'leap second',
          () =>
            admin.post('/v1/tokens', { name: 'leap', permissions: ['cases:read'], expires_at: '2027-12-31T23:59:60Z' }),
          'invalid_request',
        ],
        [
          'NUL in a name',
          () => admin.post('/v1/tokens', { name: 'a\u0000b', permissions: ['cases:read'] }),
          'invalid_request',
        ],
        [
          'newline in a name',
          () => admin.post('/v1/tokens', { name: 'a\nb', permissions: ['cases:read'] }),
          'invalid_request',
        ],
        ['NUL in a path', () => admin.get('/v1/tokens/tok%00x'), 'invalid_request'],
        [
          'fractional cursor',
          () => admin.get(`/v1/tokens?cursor=${Buffer.from('{"c":1.5,"i":"x"}').toString('base64url')}`),
          'invalid_cursor',
        ],
        [
          'huge cursor',
          () => admin.get(`/v1/tokens?cursor=${Buffer.from('{"c":1e400,"i":"x"}').toString('base64url')}`),
          'invalid_cursor',
        ],
        [
          'audit cursor',
          () => admin.get(`/v1/audit-events?cursor=${Buffer.from('{"s":2.5}').toString('base64url')}`),
          'invalid_cursor',
        ],
        ['leap-second since', () => admin.get('/v1/audit-events?since=2026-12-31T23:59:60Z'), 'invalid_request'],
        ['unknown query parameter', () => admin.get('/v1/tokens?limt=5'), 'invalid_request'],
        [
          'malformed Basic',
          () => apiClient(server, { authorization: 'Basic %%%' }).get('/v1/me'),
          'invalid_credentials',
        ],
      ];
      for (const [name, call, code] of cases) {
        const response = await call();
        assert.ok(
          response.status === 400 || response.status === 401,
          `${name}: ${response.status} ${JSON.stringify(response.body)}`,
        );
        assert.equal(problemBody(response).code, code, name);
      }
      assert.equal(
        (await admin.get<Page<'tokens', ApiToken>>('/v1/tokens?limit=500')).body.tokens.length,
        before,
        'no token was created by bad input',
      );
    });

    test('a token cannot create a token that outlives it', async () => {
      const end = Date.now() + 3_600_000;
      const parent = apiClient(
        server,
        bearer((await issueToken(server, acme, ['tokens:write', 'cases:read'], { expiresAt: end })).value),
      );
      const forever = await parent.post<Problem>('/v1/tokens', {
        name: 'forever',
        permissions: ['cases:read'],
        expires_at: null,
      });
      assert.equal(forever.status, 400);
      assert.equal(forever.body.field, 'expires_at');
      const later = await parent.post('/v1/tokens', {
        name: 'later',
        permissions: ['cases:read'],
        expires_at: new Date(end + 60_000).toISOString(),
      });
      assert.equal(later.status, 400);
      const within = await parent.post('/v1/tokens', {
        name: 'within',
        permissions: ['cases:read'],
        expires_at: new Date(end - 60_000).toISOString(),
      });
      assert.equal(within.status, 201);
    });

    test('CSRF: every cookie-authenticated unsafe method needs the token; cross-site writes are refused for any credential', async () => {
      const alice = await signIn(server, { tenant: acme, role: 'admin', email: `alice-${target.kind}@example.com` });
      const { id } = await issueToken(server, acme, ['cases:read']);
      assert.equal((await alice.client.delete(`/v1/tokens/${id}`)).status, 403);
      assert.equal((await alice.client.delete(`/v1/tokens/${id}`, { 'x-csrf-token': alice.csrf })).status, 200);
      const crossSite = await admin.post<Problem>(
        '/v1/tokens',
        { name: 'x', permissions: ['cases:read'] },
        { 'sec-fetch-site': 'cross-site' },
      );
      assert.equal(crossSite.status, 403);
      assert.equal(crossSite.body.code, 'csrf_token_invalid');
      assert.equal(
        (
          await admin.post(
            '/v1/tokens',
            { name: 'x', permissions: ['cases:read'] },
            { 'sec-fetch-site': 'same-origin' },
          )
        ).status,
        201,
      );
    });

    test('an analyst or viewer manages only their own tokens, within their role', async () => {
      for (const role of ['analyst', 'viewer'] as const) {
        const person = await signIn(server, { tenant: acme, role, email: `${role}-${target.kind}@example.com` });
        const write = { 'x-csrf-token': person.csrf };
        const beyond = await person.client.post<Problem>(
          '/v1/tokens',
          { name: 'mine', permissions: ['tokens:write'] },
          write,
        );
        assert.equal(beyond.status, 403);
        assert.deepEqual(beyond.body.missing_permissions, ['tokens:write']);
        const { id } = await issueToken(server, acme, ['cases:read'], { name: `not ${role}'s` });
        assert.equal((await person.client.delete<Problem>(`/v1/tokens/${id}`, write)).status, 404);
        assert.equal((await admin.get<ApiToken>(`/v1/tokens/${id}`)).body.status, 'active');
      }
    });

    test('a session ends after 12 hours unused: 401 session_expired, and the dead cookie is cleared', async () => {
      const bob = await signIn(server, { tenant: acme, role: 'viewer', email: `bob-${target.kind}@example.com` });
      assert.equal((await bob.client.get('/v1/me')).status, 200);
      await server.sightline.database.db
        .updateTable('sessions')
        .set({ last_seen_at: Date.now() - 13 * 3_600_000 })
        .execute();
      const expired = await bob.client.get<Problem>('/v1/me');
      assert.equal(expired.status, 401);
      assert.equal(expired.body.code, 'session_expired');
      assert.match(expired.headers.get('set-cookie') ?? '', /^sightline_session=; Path=\/; Max-Age=0/);
    });
  });
}

describe('the failed-attempt limit under pressure', () => {
  test('a concurrent burst of wrong passwords gets no more tries than the limit', async () => {
    const database = await databaseTargets[0]!.create();
    const server = await startServer(database, { authMaxFailures: 3 });
    try {
      const answers = await Promise.all(
        Array.from({ length: 40 }, () =>
          apiClient(server).post('/v1/auth/login', { email: 'x@example.com', password: 'guess guess guess' }),
        ),
      );
      const statuses = answers.map((answer) => answer.status);
      assert.equal(statuses.filter((status) => status === 401).length, 3, statuses.join(','));
      assert.equal(statuses.filter((status) => status === 429).length, 37);
    } finally {
      await server.close();
      await database.cleanup();
    }
  });

  test('stale credentials (a deleted token, an ended session) do not lock the address out', async () => {
    const database = await databaseTargets[0]!.create();
    const server = await startServer(database, { authMaxFailures: 2 });
    try {
      const acme = await seedTenant(server, 'acme');
      const live = apiClient(server, bearer((await issueToken(server, acme)).value));
      const stale = await issueToken(server, acme, ['cases:read']);
      await live.delete(`/v1/tokens/${stale.id}`);
      for (let i = 0; i < 5; i++)
        assert.equal((await apiClient(server, bearer(stale.value)).get<Problem>('/v1/me')).body.code, 'token_revoked');
      for (let i = 0; i < 5; i++)
        assert.equal((await apiClient(server, { cookie: 'sightline_session=gone' }).get('/v1/me')).status, 401);
      assert.equal((await live.get('/v1/me')).status, 200);
    } finally {
      await server.close();
      await database.cleanup();
    }
  });
});

describe('the operator account on first start', () => {
  test('its password comes from SIGHTLINE_ADMIN_PASSWORD, or is generated and printed once on stderr, never in the log', async () => {
    const port = await freePort();
    const dataDir = tempDir();
    const child = spawnSightline([
      'serve',
      '--data',
      dataDir,
      '--port',
      String(port),
      '--admin-email',
      'root@example.com',
    ]);
    try {
      await waitReady(child, `http://127.0.0.1:${port}/readyz`, 30_000);
      const password = /Password \(shown once, store it now\): (\S+)/.exec(child.stderr())?.[1];
      assert.ok(password, child.stderr());
      assert.ok(!child.stdout().includes(password), 'the structured log never holds the password');
      const login = await fetch(`http://127.0.0.1:${port}/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'root@example.com', password }),
      });
      assert.equal(login.status, 200);
      assert.equal(((await login.json()) as { user: { role: string } }).user.role, 'operator');
    } finally {
      await stopChild(child);
    }
    // A second start finds the account and prints nothing.
    const again = spawnSightline(['serve', '--data', dataDir, '--port', String(port)]);
    try {
      await waitReady(again, `http://127.0.0.1:${port}/readyz`, 30_000);
      assert.ok(!again.stderr().includes('Password'), again.stderr());
    } finally {
      await stopChild(again);
    }
  });

  test('SIGHTLINE_ADMIN_PASSWORD sets it', async () => {
    const { loadConfig } = await import('../../src/config/config.js');
    const { createSightline } = await import('../../src/app/app.js');
    const dataDir = tempDir();
    const sightline = await createSightline(
      loadConfig({ dataDir, port: 0, logLevel: 'silent' }, { SIGHTLINE_ADMIN_PASSWORD: 'operator chosen password' }),
    );
    try {
      assert.equal(sightline.firstOperator?.generatedPassword, undefined);
      await sightline.server.listen({ host: '127.0.0.1', port: 0 });
      const address = sightline.server.server.address() as { port: number };
      const login = await fetch(`http://127.0.0.1:${address.port}/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'admin@localhost', password: 'operator chosen password' }),
      });
      assert.equal(login.status, 200);
    } finally {
      await sightline.close();
    }
  });
});
