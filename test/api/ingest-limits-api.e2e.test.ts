// Per-tenant ingest limits through HTTP, on SQLite and PostgreSQL: off by default; once the
// platform operator sets them, requests within them are stored, a request over them is answered
// 429 rate_limited with Retry-After and nothing of it is stored, one bigger than the burst 413;
// another tenant is unaffected, sending works again after the wait, the refusals are counted per
// tenant in /metrics, changes are audited, and the tenant reads its limits but cannot change them.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { databaseTargets } from '../helpers/databases.js';
import { apiSuite } from '../helpers/suite.js';
import {
  apiClient,
  bearer,
  expectProblem,
  issueToken,
  signIn,
  type ApiClient,
  type Problem,
  type Session,
} from '../helpers/api.js';
import { appRecord, ndjson } from '../helpers/factories.js';
import { searchAll } from '../helpers/telemetry.js';
import { allPermissions } from '../../src/identity/permissions.js';

interface Limits {
  records_per_second: number | null;
  records_burst: number | null;
  bytes_per_second: number | null;
  bytes_burst: number | null;
  updated_by: string | null;
  collector_nodes?: number;
}

const OFF = { records_per_second: null, records_burst: null, bytes_per_second: null, bytes_burst: null };

for (const target of databaseTargets) {
  describe(`collector ingest limits on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target);
    let admin: ApiClient;
    let reader: ApiClient;
    let operator: Session;
    before(async () => {
      admin = apiClient(suite.server, bearer((await issueToken(suite.server, suite.acme, allPermissions)).value));
      reader = apiClient(suite.server, bearer((await issueToken(suite.server, suite.acme, ['telemetry:read'])).value));
      operator = await signIn(suite.server, {
        tenant: null,
        role: 'operator',
        email: `operator-${target.kind}@platform.example`,
      });
    });

    /** Posts `count` records marked with `run`; the raw answer. */
    const send = (run: string, count: number, host = 'acme-collector.localhost', pad = '') =>
      suite.server.post(ndjson(Array.from({ length: count }, () => appRecord({ run, pad }))), {
        'content-type': 'application/x-ndjson',
        host,
      });
    const stored = async (run: string) => (await searchAll(reader, { filters: { run } })).records.length;
    const limitsPath = (codeName = 'acme') => `/v1/tenants/${codeName}/ingest-limits`;
    const setLimits = (body: unknown, codeName = 'acme') =>
      operator.client.request<Limits>('PUT', limitsPath(codeName), {
        body,
        headers: { 'x-csrf-token': operator.csrf },
      });
    /** A collector answer read as a problem (problem+json, with a code). */
    const problemOf = async (response: Response) => {
      const body = (await response.json()) as Problem;
      return expectProblem({ status: response.status, headers: response.headers, body }, response.status, body.code);
    };
    const metric = async (name: string) => {
      const line = (await suite.server.metrics()).split('\n').find((l) => l.startsWith(`${name}{tenant="acme"}`));
      return Number(line?.split(' ').at(-1) ?? 0);
    };

    test('off by default: the collector takes what it is sent, and every node counts as one', async () => {
      const shown = await operator.client.get<Limits>(limitsPath());
      assert.equal(shown.status, 200, JSON.stringify(shown.body));
      assert.deepEqual(
        { ...shown.body, updated_at: undefined },
        {
          ...OFF,
          updated_at: undefined,
          updated_by: null,
          collector_nodes: 1,
        },
      );
      assert.deepEqual((await reader.get<Limits>('/v1/collector/ingest-limits')).body, {
        ...OFF,
        updated_at: null,
        updated_by: null,
      });
      const run = randomUUID();
      assert.equal((await send(run, 200)).status, 201);
      assert.equal(await stored(run), 200);
    });

    test('only the operator sets limits, and they are checked', async () => {
      expectProblem(
        await admin.request('PUT', limitsPath(), { body: { records_per_second: 1 } }),
        403,
        'operator_required',
      );
      expectProblem(await setLimits({ records_burst: 5 }), 400, 'invalid_request');
      expectProblem(await setLimits({ records_per_second: 0 }), 400, 'invalid_request');
      expectProblem(await setLimits({ records_per_second: 5 }, 'nobody'), 404, 'tenant_not_found');
    });

    test('over the records limit: 429 with Retry-After, nothing stored; over the burst: 413; then it fits again', async () => {
      const set = await setLimits({ records_per_second: 2, records_burst: 10 });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      assert.equal(set.body.records_burst, 10);
      assert.equal((await reader.get<Limits>('/v1/collector/ingest-limits')).body.records_per_second, 2);

      const tooBig = await problemOf(await send(randomUUID(), 11));
      assert.equal(tooBig.status, 413);
      assert.equal(tooBig.code, 'request_exceeds_burst');
      assert.match(tooBig.detail, /send smaller requests/);

      const before = await metric('sightline_collector_rate_limited_records_total');
      const run = randomUUID();
      assert.equal((await send(run, 8)).status, 201);
      const over = randomUUID();
      const refused = await send(over, 5);
      assert.equal(refused.status, 429);
      const retryAfter = Number(refused.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 2, `Retry-After ${retryAfter}`);
      const problem = await problemOf(refused);
      assert.equal(problem.code, 'rate_limited');
      assert.equal(problem.limit, 'records_per_second');
      assert.equal(problem.rate, 2);
      // Once the bucket is empty the collector refuses before reading a body (a slow machine may
      // refill a token or two between these requests).
      let early = 0;
      for (let i = 0; i < 6 && early !== 429; i++) early = (await send(randomUUID(), 1)).status;
      assert.equal(early, 429);
      assert.equal(await stored(over), 0, 'nothing of a refused request is stored');
      assert.equal(await metric('sightline_collector_rate_limited_records_total'), before + 5);
      assert.ok((await metric('sightline_collector_rate_limited_requests_total')) >= 2);

      assert.equal((await send(randomUUID(), 300, 'globex-collector.localhost')).status, 201, 'globex has no limits');

      await sleep(2_600);
      assert.equal((await send(over, 5)).status, 201, 'after the wait the same request fits');
      assert.equal(await stored(over), 5);
      assert.equal(await stored(run), 8);
    });

    test('the bytes limit counts decoded bytes the same way', async () => {
      const set = await setLimits({ bytes_per_second: 100, bytes_burst: 4_000 });
      assert.equal(set.body.records_per_second, null, 'a PUT replaces the limits');
      const tooBig = await problemOf(await send(randomUUID(), 1, undefined, 'x'.repeat(5_000)));
      assert.equal(tooBig.code, 'request_exceeds_burst');
      assert.equal(tooBig.limit, 'bytes_per_second');
      const pad = 'x'.repeat(2_000);
      assert.equal((await send(randomUUID(), 1, undefined, pad)).status, 201);
      const refused = await problemOf(await send(randomUUID(), 1, undefined, pad));
      assert.equal(refused.code, 'rate_limited');
      assert.equal(refused.limit, 'bytes_per_second');
      assert.equal(refused.rate, 100);
    });

    test('removing the limits lifts them at once, and every change is in the audit log', async () => {
      const removed = await operator.client.request<Limits>('DELETE', limitsPath(), {
        headers: { 'x-csrf-token': operator.csrf },
      });
      assert.equal(removed.status, 200);
      assert.equal(removed.body.bytes_per_second, null);
      assert.equal((await send(randomUUID(), 500)).status, 201);
      const audit = await admin.get<{ events: { action: string; details: Record<string, unknown> }[] }>(
        '/v1/audit-events?limit=100',
      );
      const changes = audit.body.events
        .filter((event) => event.action === 'tenant.settings_changed')
        .map((event) => (event.details.changes as { ingest_limits?: { to: unknown } }).ingest_limits?.to);
      assert.deepEqual(changes, [
        'off',
        { ...OFF, bytes_per_second: 100, bytes_burst: 4_000 },
        { ...OFF, records_per_second: 2, records_burst: 10 },
      ]);
    });
  });
}
