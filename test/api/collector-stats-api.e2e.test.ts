// GET /v1/collector through HTTP on SQLite and PostgreSQL: records posted to a tenant's
// collector show up in the current hour's bucket (and in the total and the last-received time);
// another tenant's records do not; the call needs telemetry:read.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { databaseTargets } from '../helpers/databases.js';
import type { TestServer } from '../helpers/server.js';
import { apiClient, bearer, ingest, issueToken, signIn, type ApiClient, type Problem } from '../helpers/api.js';
import { apiSuite } from '../helpers/suite.js';
import { appRecord } from '../helpers/factories.js';
import type { Tenant } from '../../src/identity/tenants/tenant-service.js';

const HOUR = 3_600_000;

/** GET /v1/collector */
interface CollectorStats {
  collector_url: string;
  received: {
    bucket_seconds: number;
    since: string;
    until: string;
    buckets: { start: string; records: number }[];
    total_records: number;
    last_received_at: string | null;
  };
}

for (const target of databaseTargets) {
  describe(`collector statistics API on ${target.kind}`, { skip: target.skip }, () => {
    // Behind a TLS proxy on 443, as a deployment with its own domain is.
    const suite = apiSuite(target, { baseDomain: 'sightline.test', publicUrl: 'https://sightline.test' });
    let server: TestServer;
    let acme: Tenant;
    let globex: Tenant;
    let reader: ApiClient;

    const post = (codeName: string, count: number) =>
      ingest(
        server,
        Array.from({ length: count }, () => appRecord()),
        codeName,
        'sightline.test',
      );

    before(async () => {
      ({ server, acme, globex } = suite);
      reader = apiClient(server, bearer((await issueToken(server, acme, ['telemetry:read'])).value));
    });

    test('a tenant without records: 24 empty hourly buckets, oldest first', async () => {
      const before = Date.now();
      const response = await reader.get<CollectorStats>('/v1/collector');
      assert.equal(response.status, 200, JSON.stringify(response.body));
      const { collector_url, received } = response.body;
      assert.equal(collector_url, 'https://acme-collector.sightline.test');
      assert.equal(received.bucket_seconds, 3600);
      assert.equal(received.buckets.length, 24);
      assert.equal(received.total_records, 0);
      assert.equal(received.last_received_at, null);
      const starts = received.buckets.map((bucket) => Date.parse(bucket.start));
      starts.forEach((start, i) => {
        assert.equal(start % HOUR, 0, 'buckets start on the hour');
        if (i > 0) assert.equal(start - starts[i - 1]!, HOUR, 'consecutive hours');
      });
      assert.equal(starts[23], Math.floor(before / HOUR) * HOUR, 'the last bucket is the current hour');
      assert.equal(Date.parse(received.since), starts[0]);
      assert.ok(Date.parse(received.until) >= before);
    });

    test("records posted to the collector count in the current hour; another tenant's do not", async () => {
      const start = Date.now();
      await post('acme', 7);
      await post('acme', 5);
      await post('globex', 40);
      const response = await reader.get<CollectorStats>('/v1/collector');
      assert.equal(response.status, 200);
      const { received } = response.body;
      const current = received.buckets[23]!;
      // The two posts may straddle an hour boundary; then the previous bucket holds the rest.
      const recent = current.records + (Date.parse(current.start) > start ? received.buckets[22]!.records : 0);
      assert.equal(recent, 12, `acme's 12 records, not globex's 40: ${JSON.stringify(received.buckets.slice(-2))}`);
      assert.equal(received.total_records, 12);
      const last = Date.parse(received.last_received_at!);
      assert.ok(
        last >= start - 1000 && last <= Date.now() + 1000,
        `last received just now: ${received.last_received_at!}`,
      );

      const globexReader = apiClient(server, bearer((await issueToken(server, globex, ['telemetry:read'])).value));
      const other = await globexReader.get<CollectorStats>('/v1/collector');
      assert.equal(other.body.received.total_records, 40);
      assert.equal(other.body.collector_url, 'https://globex-collector.sightline.test');

      // Asked again (finished hours come from the cache), the counts are the same.
      const again = await reader.get<CollectorStats>('/v1/collector');
      assert.equal(again.body.received.total_records, 12);
    });

    test('needs telemetry:read; operators name the tenant', async () => {
      const casesOnly = apiClient(server, bearer((await issueToken(server, acme, ['cases:read'])).value));
      const refused = await casesOnly.get<Problem>('/v1/collector');
      assert.equal(refused.status, 403);
      assert.equal(refused.body.code, 'permission_denied');
      assert.equal(refused.body.required_permission, 'telemetry:read');

      const anonymous = await apiClient(server).get('/v1/collector');
      assert.equal(anonymous.status, 401);

      const operator = await signIn(server, { tenant: null, role: 'operator', email: 'ops@platform.test' });
      const named = await operator.client.get<CollectorStats>('/v1/collector', { 'sightline-tenant': 'globex' });
      assert.equal(named.status, 200);
      assert.equal(named.body.received.total_records, 40);
      const unnamed = await operator.client.get<Problem>('/v1/collector');
      assert.equal(unnamed.status, 400);
      assert.equal(unnamed.body.code, 'tenant_required');
    });
  });
}
