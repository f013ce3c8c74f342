// Detection as a record-log consumer on both databases: it keeps one correlation engine per
// scope, restored from the database when the scope is new here, when a stream partition comes
// under a new owner epoch, and after it was told to discard (a rollback); and it reports a batch
// once, only after the transaction that applied it committed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openDatabase, type Database } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { createTenant } from '../../src/identity/tenants/tenant-service.js';
import { SqlRecordLogReader } from '../../src/record-log/record-follower.js';
import { LogFollower } from '../../src/record-log/log-follower.js';
import type { ConsumerScope } from '../../src/record-log/record-consumer.js';
import { DETECTION_CURSOR } from '../../src/detection/detection-cursor.js';
import { loadDetection } from '../../src/detection/detection-setup.js';
import { DetectionConsumer, type DetectionOutcome } from '../../src/pipeline/detection-consumer.js';
import { DEFAULT_GROUPING } from '../../src/cases/case-grouping.js';
import { MmdbGeoIp } from '../../src/devices/geoip.js';
import { storagePorts } from '../helpers/storage-ports.js';
import { toLogged } from '../../src/record-log/record-follower.js';
import { databaseTargets, type TestDatabase } from '../helpers/databases.js';

const setup = loadDetection({ rulePaths: [], pipelinePath: '' });

for (const target of databaseTargets) {
  describe(`detection consumer on ${target.kind}`, { skip: target.skip }, () => {
    let testDb: TestDatabase;
    let database: Database;
    let tenantId: number;

    before(async () => {
      testDb = await target.create();
      database = await openDatabase(testDb);
      await migrateToLatest(database);
      tenantId = (await createTenant(database.db, { codeName: 'acme', name: 'Acme' })).id;
    });
    after(async () => {
      await database.close();
      await testDb.cleanup();
    });

    /** A consumer counting the engines it builds (each one restored from the database) and what it reports. */
    function consumer() {
      const seen = { builds: 0, reports: [] as DetectionOutcome[] };
      const detection = new DetectionConsumer({
        build: () => {
          seen.builds += 1;
          return setup.buildProcessor();
        },
        upkeep: {
          locks: storagePorts(database).locks,
          policy: DEFAULT_GROUPING,
          catalogue: setup.catalogue,
          geo: MmdbGeoIp.bundled(),
        },
        report: (outcome) => seen.reports.push(outcome),
      });
      return { detection, seen };
    }

    async function insert(count: number): Promise<void> {
      const rows = Array.from({ length: count }, (_unused, i) => ({
        tenant_id: tenantId,
        received_at: Date.now(),
        event_time: Date.now(),
        record: JSON.stringify({ message: `line ${i}` }),
        meta: null,
      }));
      await database.db.insertInto('telemetry_records').values(rows).execute();
    }

    test('the whole log keeps one engine across chunks, restored again after a discard', async () => {
      const { detection, seen } = consumer();
      const reader = new SqlRecordLogReader(database.db, storagePorts(database).logReading);
      const follower = new LogFollower(database.db, reader, DETECTION_CURSOR, detection, 2);
      await insert(5);
      assert.equal(await follower.runUntilIdle(), 5);
      assert.equal(seen.builds, 1, 'one engine for three chunks');
      assert.deepEqual(
        seen.reports.map((report) => report.records),
        [2, 2, 1],
        'each chunk reported once, after its commit',
      );
      detection.discard({ kind: 'log' });
      await insert(1);
      assert.equal(await follower.runUntilIdle(), 1);
      assert.equal(seen.builds, 2, 'rebuilt from the database after the discard');
    });

    test('a stream partition keeps its engine under one owner epoch and restores it under the next', async () => {
      const { detection, seen } = consumer();
      const records = await database.db.selectFrom('telemetry_records').selectAll().orderBy('seq').limit(2).execute();
      const batch = records.map((row) => toLogged(row, '0'));
      const partition = (epoch: number): ConsumerScope => ({
        kind: 'stream-partition',
        partition: 1,
        partitions: 4,
        epoch,
      });
      const apply = (scope: ConsumerScope) =>
        database.db.transaction().execute((trx) => detection.apply(trx, { scope, records: batch }));

      await apply(partition(1));
      await apply(partition(1));
      assert.equal(seen.builds, 1);
      assert.deepEqual(seen.reports, [], 'nothing is reported before the driver says the batch committed');
      detection.committed(partition(1));
      detection.committed(partition(1));
      assert.equal(seen.reports.length, 1, 'a batch is reported once');
      await apply(partition(2));
      assert.equal(seen.builds, 2, 'a new owner epoch restores the state the former owner committed');
      await apply({ kind: 'stream-partition', partition: 2, partitions: 4, epoch: 2 });
      assert.equal(seen.builds, 3, 'each stream partition has an engine of its own');
      detection.discard(partition(2));
      detection.committed(partition(2));
      assert.equal(seen.reports.length, 1, 'what a rolled-back batch did is never reported');
    });
  });
}
