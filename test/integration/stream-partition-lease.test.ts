// A stream partition's lease and fence on PostgreSQL, without NATS: a worker that falls silent
// loses its lease session (its advisory locks go to whoever asks next) and, when it stopped
// inside a batch's transaction, that transaction and the stream partition's row with it; a
// batch applied under an epoch that is no longer the stream partition's stores nothing, even
// messages beyond the applied sequence. test/scale/scale-faults.e2e.test.ts pauses real workers.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { openDatabase, createPool, type PostgresDatabase } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { createTenant } from '../../src/identity/tenants/tenant-service.js';
import { encodeBatches } from '../../src/record-log/jetstream-codec.js';
import type { RecordConsumer } from '../../src/record-log/record-consumer.js';
import { applyMessages, type StreamPartitionMessage } from '../../src/storage/postgres/stream-partition-apply.js';
import * as store from '../../src/storage/postgres/stream-partition-store.js';
import { databaseTargets, type TestDatabase } from '../helpers/databases.js';

const target = databaseTargets.find((candidate) => candidate.kind === 'postgres')!;
const STREAM = 'LEASES';
const LEASE_MS = 500;

describe('stream partition leases on postgres', { skip: target.skip }, () => {
  let testDatabase: TestDatabase;
  let database: PostgresDatabase;
  let pool: pg.Pool;
  let tenantId: number;

  before(async () => {
    testDatabase = await target.create();
    const opened = await openDatabase({ databaseUrl: testDatabase.databaseUrl, dataDir: testDatabase.dataDir });
    if (opened.kind !== 'postgres') throw new Error('not PostgreSQL');
    database = opened;
    await migrateToLatest(database);
    tenantId = (await createTenant(database.db, { codeName: 'leases' })).id;
    pool = createPool({ ...database.pgConfig, max: 2 });
  });

  after(async () => {
    await pool.end();
    await database.close();
    await testDatabase.cleanup();
  });

  const message = (seq: number): StreamPartitionMessage => ({
    seq,
    data: encodeBatches([
      {
        tenantId,
        receivedAt: Date.UTC(2026, 10, 1),
        records: [JSON.stringify({ message: `lease test ${seq}` })],
        eventTimes: [Number.NaN],
        metas: [null],
      },
    ]),
  });
  const noConsumer = (wait = 0): RecordConsumer => ({
    apply: () => sleep(wait),
    discard: () => undefined,
  });
  const applyAs = (partition: number, epoch: number, messages: StreamPartitionMessage[], wait = 0) =>
    applyMessages(
      {
        db: database.db,
        stream: STREAM,
        partition,
        partitions: 4,
        epoch,
        consumer: noConsumer(wait),
        leaseMs: LEASE_MS,
      },
      messages,
    );
  const stored = async (partition: number) => {
    const records = await pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM telemetry_records WHERE record LIKE '%lease test%'`,
    );
    const position = await pool.query<{ applied_seq: string }>(
      'SELECT applied_seq FROM log_partitions WHERE stream = $1 AND partition = $2',
      [STREAM, partition],
    );
    return { records: Number(records.rows[0]?.n), appliedSeq: Number(position.rows[0]?.applied_seq) };
  };

  test('a batch applied under a former epoch stores nothing, even messages past the applied sequence', async () => {
    const first = await store.claimStreamPartition(pool, STREAM, 0, 'old', Date.now());
    assert.equal((await applyAs(0, first.epoch, [message(1)])).outcome, 'applied');
    const second = await store.claimStreamPartition(pool, STREAM, 0, 'new', Date.now());
    const fenced = await applyAs(0, first.epoch, [message(2), message(3)]);
    assert.deepEqual({ outcome: fenced.outcome, records: fenced.records }, { outcome: 'fenced', records: 0 });
    assert.deepEqual(await stored(0), { records: 1, appliedSeq: 1 });
    assert.equal((await applyAs(0, second.epoch, [message(2), message(3)])).records, 2);
    assert.deepEqual(await stored(0), { records: 3, appliedSeq: 3 });
  });

  test('an owner silent inside a batch past its lease loses the transaction; the next claim is not held up', async () => {
    const claim = await store.claimStreamPartition(pool, STREAM, 1, 'paused', Date.now());
    const before = await stored(1);
    // The consumer waits between the batch's statements as a paused worker would.
    await assert.rejects(applyAs(1, claim.epoch, [message(11)], LEASE_MS * 4));
    assert.deepEqual(await stored(1), before, 'nothing of the batch stays');
    const started = Date.now();
    await store.claimStreamPartition(pool, STREAM, 1, 'next', Date.now());
    assert.ok(Date.now() - started < LEASE_MS * 4, 'the row was free again');
  });

  test('a lease session silent for the lease time ends, and its advisory locks go to the next asker', async () => {
    const lock = store.lockClass(STREAM, database.pgSchema);
    const silent = new pg.Client(database.pgConfig);
    const other = new pg.Client(database.pgConfig);
    const ended = new Promise<Error>((resolve) => silent.on('error', resolve));
    await Promise.all([silent.connect(), other.connect()]);
    try {
      assert.equal(await store.expireWhenSilent(silent, LEASE_MS), true);
      assert.equal(await store.tryLock(silent, lock, 7), true);
      assert.equal(await store.tryLock(other, lock, 7), false, 'held while its holder talks');
      assert.match((await ended).message, /idle-session timeout/);
      assert.equal(await store.tryLock(other, lock, 7), true, 'free once the silent session ended');
    } finally {
      await silent.end().catch(() => undefined);
      await other.end();
    }
  });
});
