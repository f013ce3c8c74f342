// A/B of the PostgreSQL record-log write: the multi-row INSERT (storage/postgres/record-insert.ts) against COPY
// (storage/postgres/record-copy.ts), interleaved group by group on one schema, so that both see the same load.
// Reports, per method, records/s of the write alone and the CPU the PostgreSQL backend and this
// process spent per record (backend CPU read from /proc, so PostgreSQL must run on this host).
// Usage: node --import tsx bench/ingest/record-write-ab.ts --database postgres://… [--groups N] [--batches N]
import fs from 'node:fs';
import pg from 'pg';
import { seededRandom } from '../../src/core/random.js';
import { openDatabase } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { createTenant } from '../../src/identity/tenants/tenant-service.js';
import { insertRecords } from '../../src/storage/postgres/record-insert.js';
import { copyRecords } from '../../src/storage/postgres/record-copy.js';
import type { RecordBatch } from '../../src/record-log/record-log.js';
import { dropSchema, freshSchema } from '../../test/helpers/postgres.js';
import { makeBody } from '../common/records.js';

const argv = process.argv.slice(2);
const flag = (name: string, fallback: string) => {
  const at = argv.indexOf(name);
  return at >= 0 ? (argv[at + 1] ?? fallback) : fallback;
};
const base = flag('--database', '');
if (!base) throw new Error('--database postgres://… is required');
const groups = Number(flag('--groups', '20'));
const batchesPerGroup = Number(flag('--batches', '4'));

const TICK_S = 0.01; // USER_HZ on Linux
function backendCpuS(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * TICK_S;
}

const schema = freshSchema(base, 'writeab');
const database = await openDatabase({ dataDir: '/tmp', databaseUrl: schema.url });
try {
  await migrateToLatest(database);
  const tenant = await createTenant(database.db, { codeName: 'ab', name: 'AB' });
  const random = seededRandom(7);
  const batch = (): RecordBatch => {
    const text = makeBody(random, 1024 * 1024)
      .body.toString('utf8')
      .trimEnd();
    const records = text.split('\n');
    return {
      tenantId: tenant.id,
      receivedAt: Date.now(),
      records,
      eventTimes: records.map(() => Number.NaN),
      metas: records.map(() => null),
    };
  };
  const group = Array.from({ length: batchesPerGroup }, batch);
  const records = group.reduce((sum, one) => sum + one.records.length, 0);
  if (database.kind !== 'postgres') throw new Error('PostgreSQL only');
  const pool = new pg.Pool({
    ...database.pgConfig,
    max: 1,
    options: `${database.pgConfig.options ?? ''} -c synchronous_commit=on`,
  });
  const client = await pool.connect();
  const { rows } = await client.query<{ pid: number; name: string }>(
    `SELECT pg_backend_pid() AS pid, pg_get_serial_sequence('telemetry_records', 'seq') AS name`,
  );
  const { pid, name: sequence } = rows[0] ?? { pid: 0, name: '' };
  const methods = {
    insert: async () => {
      await insertRecords(client, group);
    },
    copy: async () => {
      await copyRecords(client, sequence, group);
    },
  };
  const totals = Object.fromEntries(
    Object.keys(methods).map((name) => [name, { wall: 0, pgCpu: 0, nodeCpu: 0, records: 0 }]),
  );
  for (let round = 0; round < groups; round++) {
    for (const [name, write] of round % 2 ? Object.entries(methods).reverse() : Object.entries(methods)) {
      const pgBefore = backendCpuS(pid);
      const nodeBefore = process.cpuUsage();
      const started = performance.now();
      await write();
      const total = totals[name] ?? { wall: 0, pgCpu: 0, nodeCpu: 0, records: 0 };
      total.wall += (performance.now() - started) / 1000;
      const node = process.cpuUsage(nodeBefore);
      total.nodeCpu += (node.user + node.system) / 1e6;
      total.pgCpu += backendCpuS(pid) - pgBefore;
      total.records += records;
    }
  }
  client.release();
  await pool.end();
  process.stdout.write(`${groups} groups of ${batchesPerGroup} × ~1 MB requests (${records} records) per method\n`);
  for (const [name, t] of Object.entries(totals)) {
    process.stdout.write(
      `${name.padEnd(7)} ${Math.round(t.records / t.wall)
        .toLocaleString('en-US')
        .padStart(9)} records/s of write   ` +
        `PostgreSQL backend ${((t.pgCpu / t.records) * 1e6).toFixed(2)} µs CPU/record   ` +
        `node ${((t.nodeCpu / t.records) * 1e6).toFixed(2)} µs CPU/record   ${((t.wall / groups) * 1000).toFixed(0)} ms/group\n`,
    );
  }
} finally {
  await database.close();
  await dropSchema(schema.baseUrl, schema.schema);
}
