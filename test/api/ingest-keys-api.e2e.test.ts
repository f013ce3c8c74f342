// Collector ingest keys through HTTP, on SQLite and PostgreSQL: off by default; once a tenant
// requires them, POST /log_sink stores records only with one of that tenant's keys (Bearer, or
// Basic with any user name) and refuses everything else with 401 before storing anything; an
// unknown collector address answers exactly what a keyed tenant answers, whatever the body;
// deleted and expired keys stop at once; keys are the tenant's own (404 across tenants) and need ingest_keys:*.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { databaseTargets } from '../helpers/databases.js';
import { apiSuite } from '../helpers/suite.js';
import { apiClient, basic, bearer, expectProblem, issueToken, seedTenant, type ApiClient } from '../helpers/api.js';
import { appRecord, ndjson } from '../helpers/factories.js';
import { searchAll } from '../helpers/telemetry.js';
import { allPermissions } from '../../src/identity/permissions.js';
import { cliActor } from '../../src/identity/principal.js';
import { createIngestKey, type IngestKey } from '../../src/collector/ingest-keys/ingest-key-service.js';

interface Created {
  ingest_key: IngestKey;
  value: string;
}

const FIXED_HEADERS = ['content-type', 'www-authenticate'];

for (const target of databaseTargets) {
  describe(`collector ingest keys on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target);
    let admin: ApiClient;
    let globexAdmin: ApiClient;
    let reader: ApiClient;
    before(async () => {
      admin = apiClient(suite.server, bearer((await issueToken(suite.server, suite.acme, allPermissions)).value));
      globexAdmin = apiClient(
        suite.server,
        bearer((await issueToken(suite.server, suite.globex, allPermissions)).value),
      );
      reader = apiClient(suite.server, bearer((await issueToken(suite.server, suite.acme, ['telemetry:read'])).value));
    });

    /** Posts one record marked with `run` to a collector address; the raw answer. */
    const send = (run: string, headers: Record<string, string> = {}, host = 'acme-collector.localhost') =>
      suite.server.post(ndjson([appRecord({ run })]), {
        'content-type': 'application/x-ndjson',
        host,
        ...headers,
      });
    const stored = async (run: string) => (await searchAll(reader, { filters: { run } })).records.length;
    const createKey = async (client: ApiClient, name: string) => {
      const created = await client.post<Created>('/v1/ingest-keys', { name });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return created.body;
    };
    const setRequired = (client: ApiClient, on: boolean) =>
      client.request('PUT', '/v1/collector/ingest-key-policy', { body: { require_ingest_key: on } });

    /** The answer without its per-request parts, to compare two refusals. */
    const answerOf = async (response: Response) => ({
      status: response.status,
      headers: Object.fromEntries(FIXED_HEADERS.map((name) => [name, response.headers.get(name)])),
      body: await response.text(),
    });

    test('off by default: the collector needs no key, and cannot be required without one', async () => {
      assert.deepEqual((await admin.get('/v1/collector/ingest-key-policy')).body, { require_ingest_key: false });
      const run = randomUUID();
      assert.equal((await send(run)).status, 201);
      assert.equal(await stored(run), 1);
      const refused = expectProblem(await setRequired(admin, true), 409, 'no_ingest_key');
      assert.match(refused.detail, /create one/);
      assert.deepEqual((await admin.get('/v1/collector/ingest-key-policy')).body, { require_ingest_key: false });
    });

    test('once required, only a key of this tenant stores records; every other request is 401 and stores nothing', async () => {
      const key = await createKey(admin, 'Fluent Bit, web tier');
      assert.match(key.value, /^sli_[0-9A-Za-z]{36}$/);
      assert.equal(key.ingest_key.prefix, `${key.value.slice(0, 8)}…`);
      const globexKey = await createKey(globexAdmin, 'globex forwarder');
      assert.deepEqual((await setRequired(admin, true)).body, { require_ingest_key: true });

      const run = randomUUID();
      const missing = await send(run);
      assert.equal(missing.status, 401);
      assert.equal(
        missing.headers.get('www-authenticate'),
        'Bearer realm="sightline-collector", Basic realm="sightline-collector"',
      );
      assert.equal(((await missing.json()) as { code: string }).code, 'ingest_key_required');
      const wrong = [
        bearer(`sli_${'A'.repeat(36)}`),
        bearer('not-a-key'),
        bearer(globexKey.value),
        basic(globexKey.value),
        bearer(key.value.slice(0, -1)),
      ];
      for (const headers of wrong) {
        const answer = await send(run, headers);
        assert.equal(answer.status, 401, JSON.stringify(headers));
        assert.equal(((await answer.json()) as { code: string }).code, 'invalid_ingest_key');
      }
      assert.equal(await stored(run), 0, 'nothing refused was stored');

      assert.equal((await send(run, bearer(key.value))).status, 201);
      assert.equal((await send(run, basic(key.value, 'fluent-bit'))).status, 201);
      assert.equal((await send(run, basic(key.value, ''))).status, 201);
      assert.equal(await stored(run), 3);
      // Another tenant that requires nothing is unaffected.
      assert.equal((await send(randomUUID(), {}, 'globex-collector.localhost')).status, 201);
    });

    test('an unknown collector address answers exactly as a keyed tenant does to a request without a valid key', async () => {
      const run = randomUUID();
      for (const headers of [{}, bearer(`sli_${'B'.repeat(36)}`), basic('wrong')]) {
        const keyed = await answerOf(await send(run, headers));
        assert.equal(keyed.status, 401);
        for (const host of ['nobody-collector.localhost', 'Bad_Name-collector.localhost', 'x.acme-collector.localhost'])
          assert.deepEqual(await answerOf(await send(run, headers, host)), keyed, host);
      }
      // Whatever the body: the key is judged before the body could say anything.
      const bodies: [string, Record<string, string>][] = [
        ['', { 'content-type': 'application/json' }],
        ['', {}],
        ['{"a":', { 'content-type': 'application/json' }],
        ['<p>', { 'content-type': 'text/html' }],
        ['not gzip', { 'content-type': 'application/json', 'content-encoding': 'gzip' }],
        ['{}', { 'content-type': 'application/json', 'content-encoding': 'br, zstd, x' }],
      ];
      for (const [body, headers] of bodies) {
        const to = (host: string) => suite.server.post(body, { ...headers, host });
        const keyed = await answerOf(await to('acme-collector.localhost'));
        assert.equal(keyed.status, 401, `${JSON.stringify(body)} ${JSON.stringify(headers)}`);
        assert.deepEqual(await answerOf(await to('nobody-collector.localhost')), keyed, JSON.stringify(headers));
      }
    });

    test('the list shows name, prefix, creator and last use, never the value; last use is set by sending', async () => {
      const key = await createKey(admin, 'last use');
      const listed = async () =>
        (await admin.get<{ ingest_keys: IngestKey[] }>('/v1/ingest-keys')).body.ingest_keys.find(
          (k) => k.id === key.ingest_key.id,
        );
      const before = await listed();
      assert.ok(before, 'listed');
      assert.equal(before.name, 'last use');
      assert.match(before.created_by, /^test token/);
      assert.equal(before.last_used_at, null);
      const list = await admin.get('/v1/ingest-keys');
      assert.ok(!JSON.stringify(list.body).includes(key.value), 'the value is never listed');
      const sent = Date.now();
      assert.equal((await send(randomUUID(), bearer(key.value))).status, 201);
      const after = await listed();
      assert.ok(after?.last_used_at, 'last use recorded');
      assert.ok(Date.parse(after.last_used_at) >= sent - 1_000);
    });

    test('a deleted key is refused from the next request on, and the deletion is audited', async () => {
      const key = await createKey(admin, 'to delete');
      assert.equal((await send(randomUUID(), bearer(key.value))).status, 201);
      const deleted = await admin.delete<IngestKey>(`/v1/ingest-keys/${key.ingest_key.id}`);
      assert.equal(deleted.status, 200);
      assert.equal(deleted.body.id, key.ingest_key.id);
      const run = randomUUID();
      expectProblem(await responseOf(send(run, bearer(key.value))), 401, 'invalid_ingest_key');
      assert.equal(await stored(run), 0);
      expectProblem(await admin.delete(`/v1/ingest-keys/${key.ingest_key.id}`), 404, 'not_found');
      const audit = await admin.get<{ events: { action: string; target: { id: string } | null }[] }>(
        '/v1/audit-events?limit=100',
      );
      const actions = audit.body.events.filter((e) => e.target?.id === key.ingest_key.id).map((e) => e.action);
      assert.deepEqual(new Set(actions), new Set(['ingest_key.created', 'ingest_key.deleted']));
      assert.ok(audit.body.events.some((e) => e.action === 'collector.ingest_key_policy_changed'));
    });

    test('an expired key opens nothing', async () => {
      const initech = await seedTenant(suite.server, 'initech');
      const now = Date.now();
      const db = suite.server.sightline.database.db;
      const ctx = { db, tenantId: initech.id, actor: cliActor, ip: null };
      const expired = await createIngestKey(ctx, { name: 'expired', expiresAt: now - 1_000 }, now - 60_000);
      const live = await createIngestKey(ctx, { name: 'live' });
      const initechAdmin = apiClient(
        suite.server,
        bearer((await issueToken(suite.server, initech, allPermissions)).value),
      );
      assert.equal((await setRequired(initechAdmin, true)).status, 200);
      const host = `${initech.codeName}-collector.localhost`;
      assert.equal((await send(randomUUID(), bearer(expired.value), host)).status, 401);
      assert.equal((await send(randomUUID(), bearer(live.value), host)).status, 201);
    });

    test("another tenant's keys are not found, to list or to delete", async () => {
      const key = await createKey(admin, 'acme only');
      const globexList = await globexAdmin.get<{ ingest_keys: IngestKey[] }>('/v1/ingest-keys');
      assert.equal(globexList.status, 200);
      assert.ok(!globexList.body.ingest_keys.some((k) => k.id === key.ingest_key.id));
      expectProblem(await globexAdmin.delete(`/v1/ingest-keys/${key.ingest_key.id}`), 404, 'not_found');
      assert.equal((await send(randomUUID(), bearer(key.value))).status, 201, 'the key still works for acme');
    });

    test('callers without ingest_keys:read or ingest_keys:write are refused (403)', async () => {
      const analyst = apiClient(
        suite.server,
        bearer((await issueToken(suite.server, suite.acme, ['telemetry:read', 'cases:read', 'cases:write'])).value),
      );
      expectProblem(await analyst.get('/v1/ingest-keys'), 403, 'permission_denied');
      expectProblem(await analyst.get('/v1/collector/ingest-key-policy'), 403, 'permission_denied');
      expectProblem(await analyst.post('/v1/ingest-keys', { name: 'nope' }), 403, 'permission_denied');
      expectProblem(await setRequired(analyst, false), 403, 'permission_denied');
      const readOnly = apiClient(
        suite.server,
        bearer((await issueToken(suite.server, suite.acme, ['ingest_keys:read'])).value),
      );
      assert.equal((await readOnly.get('/v1/ingest-keys')).status, 200);
      expectProblem(await readOnly.post('/v1/ingest-keys', { name: 'nope' }), 403, 'permission_denied');
      expectProblem(await readOnly.delete('/v1/ingest-keys/ikey_x'), 403, 'permission_denied');
    });

    test('the collector test record still goes through when keys are required', async () => {
      assert.deepEqual((await admin.get('/v1/collector/ingest-key-policy')).body, { require_ingest_key: true });
      const answer = await admin.post<{ status: number; stored: boolean }>('/v1/collector/test-record');
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(answer.body.status, 201);
      assert.equal(answer.body.stored, true);
    });

    test('turning the requirement off opens the collector again', async () => {
      assert.deepEqual((await setRequired(admin, false)).body, { require_ingest_key: false });
      assert.equal((await send(randomUUID())).status, 201);
    });
  });
}

/** The collector's answer as the API client shapes it, for expectProblem. */
async function responseOf(pending: Promise<Response>) {
  const response = await pending;
  return { status: response.status, headers: response.headers, body: await response.json() };
}
