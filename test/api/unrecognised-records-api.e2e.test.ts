// Records no parser recognises, counted per tenant and source shape (GET /v1/collector/unrecognised,
// Settings › Collector): records posted to /log_sink in formats Sightline does not parse — a
// Cloudflare Logpush http_requests record with custom request-header fields, a 1Password Events
// API item-usage record, both as their vendors document them — are counted by shape across
// chunks, with a redacted, truncated sample; recognised records are not; each tenant sees its
// own. The store's shape limit and its increments (what several scale-out workers rely on) are checked on
// the same database.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { databaseTargets } from '../helpers/databases.js';
import { apiSuite } from '../helpers/suite.js';
import {
  apiClient,
  bearer,
  detectionCaughtUp,
  expectProblem,
  ingest,
  issueToken,
  type ApiClient,
} from '../helpers/api.js';
import { appRecord } from '../helpers/factories.js';
import { addUnrecognised, listUnrecognised } from '../../src/telemetry/unrecognised/unrecognised-store.js';
import { OVERFLOW_SHAPE, SHAPE_LIMITS } from '../../src/telemetry/unrecognised/unrecognised-shape.js';

interface Shapes {
  shapes: {
    shape: string;
    keys: string[];
    records: number;
    first_seen_at: string;
    last_seen_at: string;
    sample: string;
  }[];
  total_records: number;
  max_shapes: number;
}

const SECRET = 'Bearer eyJhbGciOiJIUzI1NiJ9.c2VjcmV0.sig';

/** Cloudflare Logpush, http_requests dataset, with RequestHeaders as a custom field. */
function cloudflareRequest(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    RequestHeaders: { authorization: SECRET, 'user-agent': 'curl/8.5.0' },
    ClientIP: '203.0.113.9',
    ClientRequestHost: 'shop.example.com',
    ClientRequestMethod: 'GET',
    ClientRequestURI: '/cart',
    EdgeResponseStatus: 200,
    EdgeStartTimestamp: '2026-11-24T10:00:00Z',
    RayID: '7c5f1e2d3a4b5c6d',
    ...overrides,
  };
}

/** 1Password Events API, itemusages. */
function itemUsage(): Record<string, unknown> {
  return {
    uuid: '56YE2TYN2VFYRLNSHKPW5NVT5E',
    timestamp: '2026-11-24T10:00:00Z',
    used_version: 0,
    vault_uuid: 'VZSYVT2LGHTBWBQGUJAIZVRABM',
    item_uuid: 'SDGD3I4AJYO6RMHRK8DYVNFIDY',
    user: { uuid: '4HCGRGYCTRQFBMGVEGTABYDU2V', name: 'Jeff Shiner', email: 'jeff@example.com' },
    client: { app_name: '1Password Browser Extension', platform_name: 'Chrome', ip_address: '192.0.2.254' },
    action: 'secure-copy',
  };
}

const CLOUDFLARE_SHAPE =
  'ClientIP,ClientRequestHost,ClientRequestMethod,ClientRequestURI,EdgeResponseStatus,EdgeStartTimestamp,RayID,RequestHeaders';
const ITEM_USAGE_SHAPE = 'action,client,item_uuid,timestamp,used_version,user,uuid,vault_uuid';

for (const target of databaseTargets) {
  describe(`unrecognised records on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target);
    // On PostgreSQL the log shows a record once every older transaction on the server has ended,
    // other suites' included: the waits below allow for a busy shared server.
    let acme: ApiClient;
    let globex: ApiClient;
    before(async () => {
      acme = apiClient(suite.server, bearer((await issueToken(suite.server, suite.acme, ['telemetry:read'])).value));
      globex = apiClient(
        suite.server,
        bearer((await issueToken(suite.server, suite.globex, ['telemetry:read'])).value),
      );
    });

    test('counted per shape across chunks, with a redacted and truncated sample; recognised ones are not', async () => {
      const started = Date.now();
      await ingest(suite.server, [cloudflareRequest(), cloudflareRequest(), itemUsage(), appRecord()]);
      await detectionCaughtUp(suite.server, 150_000);
      const first = await acme.get<Shapes>('/v1/collector/unrecognised');
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.deepEqual(
        first.body.shapes.map((shape) => [shape.shape, shape.records]).sort(),
        [
          [CLOUDFLARE_SHAPE, 2],
          [ITEM_USAGE_SHAPE, 1],
        ].sort(),
      );
      assert.equal(first.body.total_records, 3);
      assert.equal(first.body.max_shapes, SHAPE_LIMITS.maxShapesPerTenant);
      const cloudflare = first.body.shapes.find((shape) => shape.shape === CLOUDFLARE_SHAPE)!;
      assert.deepEqual(cloudflare.keys, CLOUDFLARE_SHAPE.split(','));
      assert.ok(Date.parse(cloudflare.first_seen_at) >= started - 1_000);
      assert.doesNotMatch(cloudflare.sample, /eyJhbGci/, 'the authorization value never reaches the sample');
      assert.match(cloudflare.sample, /"authorization":"\[redacted\]"/);
      assert.match(cloudflare.sample, /"user-agent":"curl\/8\.5\.0"/);

      const longUri = `/search?q=${'a'.repeat(3_000)}`;
      await ingest(suite.server, [cloudflareRequest({ ClientRequestURI: longUri })]);
      await detectionCaughtUp(suite.server, 150_000);
      const second = await acme.get<Shapes>('/v1/collector/unrecognised');
      const grown = second.body.shapes.find((shape) => shape.shape === CLOUDFLARE_SHAPE)!;
      assert.equal(grown.records, 3, 'the second chunk adds to the count');
      assert.equal(grown.first_seen_at, cloudflare.first_seen_at);
      assert.ok(grown.last_seen_at >= cloudflare.last_seen_at);
      assert.equal(grown.sample.length, SHAPE_LIMITS.maxSampleLength + 1, 'cut, with an ellipsis');
      assert.ok(grown.sample.endsWith('aaa…'), 'the newest record is the sample');
      assert.equal(second.body.shapes[0]!.shape, CLOUDFLARE_SHAPE, 'most recently seen first');
    });

    test('a tenant sees only its own shapes, and reading them needs telemetry:read', async () => {
      const other = await globex.get<Shapes>('/v1/collector/unrecognised');
      assert.equal(other.status, 200);
      assert.deepEqual(other.body, { shapes: [], total_records: 0, max_shapes: SHAPE_LIMITS.maxShapesPerTenant });
      const noRead = apiClient(
        suite.server,
        bearer((await issueToken(suite.server, suite.acme, ['cases:read'])).value),
      );
      expectProblem(await noRead.get('/v1/collector/unrecognised'), 403, 'permission_denied');
    });

    test('the store adds chunks up in SQL and keeps at most the shape limit per tenant', async () => {
      const db = suite.server.sightline.database.db;
      const tenantId = suite.globex.id;
      const tally = (shape: string, records: number, at: number) => ({
        tenantId,
        shape,
        keys: shape.split(','),
        records,
        firstSeen: at,
        lastSeen: at,
        sample: `{"at":${at}}`,
      });
      // Two scale-out workers' batches for the same shape, the later one committed first.
      await addUnrecognised(db, [tally('a,b', 5, 2_000)]);
      await addUnrecognised(db, [tally('a,b', 7, 1_000)]);
      let rows = await listUnrecognised(db, tenantId);
      assert.deepEqual(rows, [
        {
          shape: 'a,b',
          keys: ['a', 'b'],
          records: 12,
          first_seen_at: 1_000,
          last_seen_at: 2_000,
          sample: '{"at":2000}',
        },
      ]);
      const many = Array.from({ length: SHAPE_LIMITS.maxShapesPerTenant + 4 }, (_, i) => tally(`k${i}`, 1, 3_000 + i));
      await addUnrecognised(db, many);
      rows = await listUnrecognised(db, tenantId);
      assert.equal(rows.length, SHAPE_LIMITS.maxShapesPerTenant + 1);
      const overflow = rows.find((row) => row.shape === OVERFLOW_SHAPE);
      assert.ok(overflow, 'the shapes past the limit are counted together');
      assert.equal(overflow.records, 5);
      assert.deepEqual(overflow.keys, []);
      await addUnrecognised(db, [tally('a,b', 1, 9_000), tally('new,shape', 2, 9_000)]);
      rows = await listUnrecognised(db, tenantId);
      assert.equal(rows.find((row) => row.shape === 'a,b')?.records, 13, 'a kept shape still counts');
      assert.equal(rows.find((row) => row.shape === OVERFLOW_SHAPE)?.records, 7);
      assert.equal((await listUnrecognised(db, suite.acme.id)).length, 2, 'the other tenant is untouched');
    });
  });
}
