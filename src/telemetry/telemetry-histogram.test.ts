// Histogram counts against a model, on a real database: records at known receive times, some
// matching a field filter, counted per bucket over ranges that start and end inside buckets and
// whose buckets PostgreSQL splits between concurrent queries (PG_SLICES, in
// storage/postgres/telemetry-histogram.ts), so that a record on either side of a slice's edge is
// counted once, in its own bucket.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openDatabase, type Database } from '../storage/database.js';
import { migrateToLatest } from '../storage/migrate.js';
import { createTenant } from '../identity/tenants/tenant-service.js';
import { seededRandom } from '../core/random.js';
import { databaseTargets, type TestDatabase } from '../../test/helpers/databases.js';
import { telemetryReader } from '../../test/helpers/storage-ports.js';
import { bucketGrid, histogramTelemetry } from './telemetry-histogram.js';

const T0 = Date.parse('2026-11-01T00:00:00Z');
const HOUR = 3_600_000;

interface Row {
  receivedAt: number;
  status: number;
}

for (const target of databaseTargets) {
  describe(`histogram counts on ${target.kind}`, { skip: target.skip }, () => {
    let testDb: TestDatabase;
    let database: Database;
    let tenantId: number;
    let otherTenantId: number;
    const rows: Row[] = [];

    before(async () => {
      testDb = await target.create();
      database = await openDatabase({ databaseUrl: testDb.databaseUrl, dataDir: testDb.dataDir });
      await migrateToLatest(database);
      tenantId = (await createTenant(database.db, { codeName: 'histogram-a' })).id;
      otherTenantId = (await createTenant(database.db, { codeName: 'histogram-b' })).id;
      const random = seededRandom(17);
      for (let i = 0; i < 2_000; i++) {
        // Across one day, plus records exactly on bucket edges (every half hour).
        const receivedAt = i % 10 === 0 ? T0 + (i / 10) * 1_800_000 : T0 + Math.floor(random() * 24 * HOUR);
        rows.push({ receivedAt, status: random() < 0.2 ? 503 : 200 });
      }
      const values = rows.map((row, i) => {
        const record = JSON.stringify({ http: { status: row.status }, message: `request ${i}` });
        // PostgreSQL: half as its writer marks plain records, half unmarked as older rows are.
        const marked = target.kind === 'postgres' && i % 2 === 0 ? true : null;
        return {
          tenant_id: tenantId,
          received_at: row.receivedAt,
          event_time: row.receivedAt,
          record,
          meta: null,
          jsonb_ok: marked,
          plain_text: marked,
        };
      });
      for (let i = 0; i < values.length; i += 500)
        await database.db
          .insertInto('telemetry_records')
          .values(values.slice(i, i + 500))
          .execute();
      // Another tenant's matching records at the same times count for nobody here.
      await database.db
        .insertInto('telemetry_records')
        .values(values.slice(0, 300).map((value) => ({ ...value, tenant_id: otherTenantId })))
        .execute();
    });
    after(async () => {
      await database.close();
      await testDb.cleanup();
    });

    const model = (since: number, until: number, buckets: number, status?: number) => {
      const grid = bucketGrid(since, until, buckets);
      const counts = Array.from({ length: grid.count }, () => 0);
      for (const row of rows) {
        if (row.receivedAt < since || row.receivedAt >= until) continue;
        if (status !== undefined && row.status !== status) continue;
        const bucket = Math.floor((row.receivedAt - grid.origin) / grid.width);
        counts[bucket] = (counts[bucket] ?? 0) + 1;
      }
      return counts;
    };

    for (const [name, since, until, buckets] of [
      ['a whole day in 48 buckets', T0, T0 + 24 * HOUR, 48],
      ['a range starting and ending inside buckets, an odd number of them', T0 + 17 * 60_000, T0 + 7 * HOUR + 1, 7],
      ['two buckets', T0 + HOUR, T0 + 3 * HOUR, 2],
    ] as const) {
      test(`${name}: every bucket's count is the model's, with and without a field filter`, async () => {
        const input = { since: new Date(since).toISOString(), until: new Date(until).toISOString() };
        const filtered = await histogramTelemetry(
          telemetryReader(database),
          tenantId,
          { ...input, query: 'http.status:503' },
          buckets,
        );
        assert.deepEqual(
          filtered.buckets.map((bucket) => bucket.count),
          model(since, until, buckets, 503),
        );
        assert.equal(
          filtered.total,
          model(since, until, buckets, 503).reduce((sum, n) => sum + n, 0),
        );
        assert.ok(filtered.total > 0, 'the range holds matching records');
        const all = await histogramTelemetry(telemetryReader(database), tenantId, input, buckets);
        assert.deepEqual(
          all.buckets.map((bucket) => bucket.count),
          model(since, until, buckets),
        );
      });
    }
  });
}
