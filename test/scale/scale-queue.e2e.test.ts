// The scale-out record log's parts against a real nats-server (a standalone JetStream server on
// a free loopback port) and real PostgreSQL (a schema of the test's): a request retried with its
// Idempotency-Key after the collector died is stored once (and told so); a message no worker can apply is set aside as a dead
// letter and its stream partition moves on; a delivery that never reached the worker is applied in its
// turn, not skipped as already applied; two workers applying at once leave every record indexed
// for search, and the search index cursor then reaches the end of the log.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Registry } from 'prom-client';
import { connect } from '@nats-io/transport-node';
import { sql } from 'kysely';
import { openDatabase, type PostgresDatabase } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { createTenant } from '../../src/identity/tenants/tenant-service.js';
import { JetStreamLink, type QueueLog } from '../../src/record-log/jetstream-connection.js';
import { JetStreamRecordQueue } from '../../src/record-log/jetstream-queue.js';
import { StreamPartitionConsumers, consumerName } from '../../src/storage/postgres/stream-partition-consumers.js';
import type { RecordConsumer } from '../../src/record-log/record-consumer.js';
import { streamPartitionSubject, tenantStreamPartition } from '../../src/record-log/jetstream-codec.js';
import { ScaleMetrics } from '../../src/record-log/scale-metrics.js';
import type { RecordBatch } from '../../src/record-log/record-log.js';
import { indexPostgresChunk, searchIndexConsumer } from '../../src/storage/postgres/search-indexer.js';
import { indexedUpTo, logEnd } from '../../src/telemetry/telemetry-store.js';
import { tempDir } from '../helpers/databases.js';
import { dropSchema, freshSchema } from '../helpers/postgres.js';
import { NatsCluster, natsServerBinary } from '../helpers/nats.js';

const pgBase = process.env.SIGHTLINE_TEST_DATABASE_URL ?? '';
const binary = natsServerBinary('the scale-out record-log tests are');
const PARTITIONS = 4;
const quiet: QueueLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

interface Rig {
  database: PostgresDatabase;
  link: JetStreamLink;
  stream: string;
  /** The NATS server's address. */
  urls: string;
  /** Stopped before the servers and the schema go. */
  running: StreamPartitionConsumers[];
}

async function rig(t: { after(fn: () => Promise<void>): void }, stream: string): Promise<Rig> {
  if (!binary) throw new Error('nats-server missing');
  const dir = tempDir('sightline-queue-');
  const nats = await NatsCluster.start(binary, dir, 1);
  const fresh = freshSchema(pgBase, 'queue');
  const database = await openDatabase({ databaseUrl: fresh.url, dataDir: dir });
  if (database.kind !== 'postgres') throw new Error('the test database is not PostgreSQL');
  await migrateToLatest(database);
  // Records refer to their tenant: tenants 1 to 12 exist.
  for (let i = 1; i <= 12; i += 1) await createTenant(database.db, { codeName: `tenant${i}` });
  const link = new JetStreamLink(
    { urls: [nats.urls], credentialsFile: '', token: '', tlsCaFile: '', stream, partitions: PARTITIONS, replicas: 1 },
    quiet,
  );
  link.start();
  await link.whenReady();
  const running: StreamPartitionConsumers[] = [];
  t.after(async () => {
    await Promise.all(running.map((worker) => worker.stop()));
    await link.close();
    await database.close();
    await nats.stop();
    await dropSchema(fresh.baseUrl, fresh.schema);
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return { database, link, stream, urls: nats.urls, running };
}

function batch(tenantId: number, lines: string[]): RecordBatch {
  return {
    tenantId,
    receivedAt: Date.UTC(2026, 10, 1),
    records: lines,
    eventTimes: lines.map(() => Number.NaN),
    metas: lines.map(() => null),
  };
}

async function streamMessages(link: JetStreamLink, stream: string): Promise<number> {
  const info = await link.jsm?.streams.info(stream);
  return info?.state.messages ?? -1;
}

/** A collector's publisher on the rig's link (64 MiB per request), its metrics ignored. */
function queue(r: Rig): JetStreamRecordQueue {
  return new JetStreamRecordQueue(r.link, 64 * 1024 * 1024, { published: () => undefined, failed: () => undefined });
}

function workers(r: Rig, metrics: ScaleMetrics, consumer?: RecordConsumer): StreamPartitionConsumers {
  const worker = new StreamPartitionConsumers({
    link: r.link,
    pgConfig: r.database.pgConfig,
    pgSchema: r.database.pgSchema,
    db: r.database.db,
    consumers: consumer ? [consumer] : [],
    log: quiet,
    metrics,
    onMaintenanceLease: () => undefined,
  });
  r.running.push(worker);
  return worker;
}

async function until(what: string, condition: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await sleep(200);
  }
}

const needs = !binary || !pgBase ? 'needs nats-server and PostgreSQL (see the warnings above)' : false;

test(
  'a request retried with its Idempotency-Key after its collector died is stored once; identical bodies without one are all stored',
  { skip: needs, timeout: 60_000 },
  async (t) => {
    const r = await rig(t, 'DEDUPE');
    const metrics = new ScaleMetrics(new Registry());
    const publisher = () => queue(r);
    const body = Buffer.from('{"a":1}\n{"a":2}\n');
    const records = ['{"a":1}', '{"a":2}'];
    // Identical bodies without a key are two requests: repeated log lines are data.
    await publisher().append(batch(7, records), body.length, { idempotencyKey: undefined });
    await publisher().append(batch(7, records), body.length, { idempotencyKey: undefined });
    assert.equal(await streamMessages(r.link, r.stream), 2, 'identical bodies without a key are both stored');
    // Two collectors (the first "died" after JetStream stored the request): the client retries it
    // with the same Idempotency-Key, which is stored once; another key, or the same key for another
    // tenant, is another request.
    const other = Buffer.from('{"a":3}\n');
    const sends = [
      [7, 'req-1'],
      [7, 'req-1'],
      [7, 'req-2'],
      [8, 'req-1'],
    ] as const;
    const answers: boolean[] = [];
    for (const [tenant, key] of sends)
      answers.push(
        (await publisher().append(batch(tenant, ['{"a":3}']), other.length, { idempotencyKey: key })).duplicate,
      );
    assert.equal(await streamMessages(r.link, r.stream), 5, 'the retried key is stored once');
    assert.deepEqual(answers, [false, true, false, false], 'only the retry is told its first attempt had been stored');
    await assert.rejects(
      publisher().append(batch(7, ['{"a":3}']), other.length, { idempotencyKey: ['a', 'b'] }),
      /Idempotency-Key header must be one value/,
    );
    const worker = workers(r, metrics);
    worker.start();
    await until('every message is applied', async () => (await logEnd(r.database.db)) >= 7);
    const stored = await r.database.db.selectFrom('telemetry_records').select(['tenant_id', 'record']).execute();
    assert.deepEqual(stored.map((row) => `${row.tenant_id} ${row.record}`).sort(), [
      '7 {"a":1}',
      '7 {"a":1}',
      '7 {"a":2}',
      '7 {"a":2}',
      '7 {"a":3}',
      '7 {"a":3}',
      '8 {"a":3}',
    ]);
  },
);

test(
  'an unappliable message becomes a dead letter and its stream partition moves on',
  { skip: needs, timeout: 60_000 },
  async (t) => {
    const r = await rig(t, 'POISON');
    const registry = new Registry();
    const metrics = new ScaleMetrics(registry);
    const js = r.link.js;
    assert.ok(js);
    const tenant = 11;
    const subject = streamPartitionSubject(r.stream, tenantStreamPartition(tenant, PARTITIONS));
    const publisher = queue(r);
    await publisher.append(batch(tenant, ['{"n":1}']), 8);
    // Not JSON; the right format with a malformed batch; a record PostgreSQL refuses (a NUL byte).
    await js.publish(subject, Buffer.from('\u0001garbage'));
    await js.publish(subject, Buffer.from(JSON.stringify({ v: 1, b: [{ t: tenant, at: 1, r: ['x'], e: [], m: [] }] })));
    const nul = JSON.stringify({ v: 1, b: [{ t: tenant, at: 1, r: ['{"bad":"\u0000"}'], e: [null], m: [null] }] });
    await js.publish(subject, Buffer.from(nul));
    // A tenant that no longer exists (the database refuses the reference).
    await js.publish(
      subject,
      Buffer.from(JSON.stringify({ v: 1, b: [{ t: 999, at: 1, r: ['{}'], e: [null], m: [null] }] })),
    );
    await publisher.append(batch(tenant, ['{"n":2}']), 8);
    const worker = workers(r, metrics);
    worker.start();
    await until('the good records after the bad messages are applied', async () => (await logEnd(r.database.db)) >= 2);
    const letters = await r.database.db
      .selectFrom('log_dead_letters')
      .select(['partition', 'stream_seq', 'tenant_id', 'reason', 'excerpt', 'bytes'])
      .orderBy('stream_seq')
      .execute();
    assert.deepEqual(
      letters.map((row) => [row.partition, row.stream_seq, row.tenant_id]),
      [2, 3, 4, 5].map((seq) => [
        tenantStreamPartition(tenant, PARTITIONS),
        seq,
        seq === 2 ? null : seq === 5 ? 999 : tenant,
      ]),
    );
    assert.match(letters[0]?.reason ?? '', /JSON/);
    assert.match(letters[1]?.reason ?? '', /malformed batch/);
    assert.match(letters[2]?.reason ?? '', /^22/, 'PostgreSQL refused the data (SQLSTATE class 22)');
    assert.match(letters[3]?.reason ?? '', /^23503/, 'PostgreSQL refused the reference (SQLSTATE class 23)');
    assert.ok(letters.every((row) => row.excerpt.length > 0 && row.excerpt.length <= 2_000));
    const records = await r.database.db.selectFrom('telemetry_records').select('record').orderBy('seq').execute();
    assert.deepEqual(
      records.map((row) => row.record),
      ['{"n":1}', '{"n":2}'],
    );
    const text = await registry.metrics();
    assert.match(
      text,
      new RegExp(`sightline_queue_dead_letters_total\\{partition="${tenantStreamPartition(tenant, PARTITIONS)}"\\} 4`),
    );
  },
);

test(
  'a delivery that never reached the worker is applied in its turn, not skipped as already applied',
  { skip: needs, timeout: 60_000 },
  async (t) => {
    const r = await rig(t, 'LOST');
    const registry = new Registry();
    const metrics = new ScaleMetrics(registry);
    const tenant = 5;
    const partition = tenantStreamPartition(tenant, PARTITIONS);
    const publisher = queue(r);
    // The worker is held inside the apply of "second", so that it has no fetch outstanding.
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding = false;
    const holder: RecordConsumer = {
      apply: async (_trx, applied) => {
        if (applied.records.some((record) => record.record.includes('second'))) {
          holding = true;
          await held;
        }
      },
      discard: () => undefined,
    };
    const worker = workers(r, metrics, holder);
    worker.start();
    await publisher.append(batch(tenant, ['{"n":"first"}']), 1);
    await publisher.append(batch(tenant, ['{"n":"second"}']), 1);
    await until('the worker is applying the second message', () => Promise.resolve(holding));
    // The third message is delivered to a fetch that then goes away (as when a fetch ends, or a
    // connection or NATS server is lost, while the message is on its way).
    await publisher.append(batch(tenant, ['{"n":"third"}']), 1);
    const thief = await connect({ servers: r.urls });
    t.after(() => thief.close());
    const inbox = thief.subscribe('_INBOX.lost', { max: 1 });
    thief.publish(
      `$JS.API.CONSUMER.MSG.NEXT.${r.stream}.${consumerName(r.stream, partition)}`,
      JSON.stringify({ batch: 1 }),
      {
        reply: '_INBOX.lost',
      },
    );
    for await (const message of inbox)
      assert.match(message.string(), /third/, 'the lost delivery is the third message');
    await publisher.append(batch(tenant, ['{"n":"fourth"}']), 1);
    release();
    // JetStream would send the lost delivery again only after the 30 s ack wait, behind "fourth".
    await until('every record is stored', async () => (await logEnd(r.database.db)) >= 4, 20_000);
    const stored = await r.database.db.selectFrom('telemetry_records').select('record').orderBy('seq').execute();
    assert.deepEqual(
      stored.map((row) => row.record),
      ['{"n":"first"}', '{"n":"second"}', '{"n":"third"}', '{"n":"fourth"}'],
      'in the order they were published',
    );
    assert.match(await registry.metrics(), /sightline_queue_consumer_restarts_total 1/);
  },
);

test(
  'two workers applying at once: every record is indexed for search, the cursor reaches the end',
  { skip: needs, timeout: 90_000 },
  async (t) => {
    const r = await rig(t, 'INDEXED');
    const metrics = new ScaleMetrics(new Registry());
    const [a, b] = [workers(r, metrics, searchIndexConsumer), workers(r, metrics, searchIndexConsumer)];
    a.start();
    b.start();
    const publisher = queue(r);
    const tenants = [1, 2, 3, 4, 5, 6, 7, 8];
    let total = 0;
    for (let round = 0; round < 40; round += 1) {
      await Promise.all(
        tenants.map((tenant) => {
          const lines = Array.from(
            { length: 50 },
            (_unused, i) => `{"tenant":${tenant},"round":${round},"i":${i},"word":"w${round}x${i}"}`,
          );
          total += lines.length;
          return publisher.append(batch(tenant, lines), 1);
        }),
      );
    }
    await until('both workers own partitions', () =>
      Promise.resolve(a.partitions.length > 0 && b.partitions.length > 0),
    );
    await until(
      'every record is stored',
      async () =>
        Number(
          (await sql<{ n: string }>`SELECT count(*)::text AS n FROM telemetry_records`.execute(r.database.db)).rows[0]
            ?.n,
        ) === total,
    );
    const { rows } = await sql<{ records: string; indexed: string; missing: string }>`
    SELECT (SELECT count(*) FROM telemetry_records)::text AS records,
           (SELECT count(*) FROM telemetry_fts)::text AS indexed,
           (SELECT count(*) FROM telemetry_records r WHERE NOT EXISTS (SELECT 1 FROM telemetry_fts f WHERE f.seq = r.seq))::text AS missing`.execute(
      r.database.db,
    );
    assert.deepEqual(rows[0], { records: String(total), indexed: String(total), missing: '0' });
    const hit = await sql<{
      n: string;
    }>`SELECT count(*)::text AS n FROM telemetry_fts WHERE tsv @@ to_tsquery('simple', 'w7x3')`.execute(r.database.db);
    assert.equal(hit.rows[0]?.n, String(tenants.length), 'the index answers a search');
    // The cursor loop only moves the cursor over records already indexed; it reaches the end.
    while ((await indexPostgresChunk(r.database.db, 1_000)) === 1_000);
    assert.equal(await indexedUpTo(r.database.db), await logEnd(r.database.db));
  },
);
