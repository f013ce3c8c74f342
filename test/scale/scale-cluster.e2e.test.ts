// The scale-out mode end to end: a real 3-node NATS JetStream cluster on free loopback ports,
// PostgreSQL (a schema of the test's), two collectors, two workers and an API node as separate
// processes. Over 100,000 records of three tenants go through both collectors while a worker, a
// collector and a NATS server are killed -9 and restarted. The senders behave as log forwarders:
// every request has a fresh Idempotency-Key, and one refused or unanswered is resent with the same
// key to the other collector, so nearly every record is acknowledged, including requests whose
// first attempt was stored although its answer was lost. Every acknowledged record must be
// stored exactly once (the rest at most once), each sender's order kept within its tenant, and
// the observations and cases (detected per stream partition inside each batch's apply) must equal those
// the embedded single process makes of the same input, including an event_count correlation whose
// window holds records applied before and after the kill of the worker that owned its tenant.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { openDatabase, type Database } from '../../src/storage/database.js';
import { createTenant } from '../../src/identity/tenants/tenant-service.js';
import { tenantStreamPartition } from '../../src/record-log/jetstream-codec.js';
import { tempDir } from '../helpers/databases.js';
import { dropSchema, freshSchema } from '../helpers/postgres.js';
import { NatsCluster, natsServerBinary } from '../helpers/nats.js';
import { stopChild } from '../helpers/processes.js';
import {
  connect,
  forward,
  generateRecords,
  killNode,
  postRecords,
  startNode,
  storedRecords,
  missingReport,
  type NodeProcess,
  type StoredRow,
} from '../helpers/scale.js';

const TENANTS = ['alpha', 'bravo', 'charlie'];
const PER_TENANT = 35_000;
const REQUEST_RECORDS = 250;
const PACE_MS = 250;
const pgBase = process.env.SIGHTLINE_TEST_DATABASE_URL ?? '';
const binary = natsServerBinary('the scale-out cluster tests are');
const PARTITIONS = 8;
/**
 * Every 100 answered web requests of a tenant within 10 minutes: fires again and again through
 * the run, so each hit rests on the window state carried across every batch, and across the kill.
 */
const WEB_VOLUME_ID = 'a54e6c3e-2f1b-4d55-9c1e-3b0f6f4f8a10';
const WEB_VOLUME_RULES = `title: Web Request Answered
id: 0f1d8f8e-4a53-4c63-9a4e-3cf6d1f2b7a1
name: test_web_answered
status: test
logsource:
  category: webserver
detection:
  selection:
    sc-status: 200
  condition: selection
level: informational
---
title: Web Request Volume
id: ${WEB_VOLUME_ID}
status: test
correlation:
  type: event_count
  rules:
    - test_web_answered
  timespan: 10m
  condition:
    gte: 100
level: low
`;

test(
  'scale-out cluster: every acknowledged record exactly once through kills, order kept, detection as embedded',
  {
    skip: !binary || !pgBase ? 'needs nats-server and PostgreSQL (see the warnings above)' : false,
    timeout: 420_000,
  },
  async (t) => {
    if (!binary) return;
    const began = Date.now();
    const phase = (what: string) => t.diagnostic(`${((Date.now() - began) / 1000).toFixed(1)} s: ${what}`);
    const dir = tempDir('sightline-scale-');
    const fresh = freshSchema(pgBase, 'scale');
    const nodes: NodeProcess[] = [];
    const nats = await NatsCluster.start(binary, dir);
    t.after(async () => {
      await Promise.all(nodes.map((node) => stopChild(node.child, 5_000)));
      await nats.stop();
      await dropSchema(fresh.baseUrl, fresh.schema);
      fs.rmSync(dir, { recursive: true, force: true });
    });
    const rules = path.join(dir, 'rules');
    fs.mkdirSync(rules);
    fs.writeFileSync(path.join(rules, 'web_volume.yml'), WEB_VOLUME_RULES);
    const common = ['--queue', nats.urls, '--database', fresh.url, '--queue-partitions', String(PARTITIONS)];
    common.push('--rule-paths', rules);
    const node = async (name: string, role: string, port?: number) => {
      const started = await startNode(name, ['--role', role, ...common, '--data', path.join(dir, name)], port);
      nodes.push(started);
      return started;
    };

    // The API node first: it migrates the schema and creates the first tenant; then the tenants.
    await node('api', 'api');
    const database = await openDatabase({ databaseUrl: fresh.url, dataDir: dir });
    const tenantIds = new Map<string, number>();
    for (const codeName of TENANTS) tenantIds.set(codeName, (await createTenant(database.db, { codeName })).id);
    await database.close();
    const watchedTenant = tenantIds.get(TENANTS[0] ?? '') ?? 0;
    const watchedPartition = tenantStreamPartition(watchedTenant, PARTITIONS);
    const [colA, colB, workA, workB] = await Promise.all([
      node('col-a', 'collector'),
      node('col-b', 'collector'),
      node('work-a', 'worker'),
      node('work-b', 'worker'),
    ]);
    const collectors = [colA, colB];
    const workers = [workA, workB];

    phase('cluster up');
    const input = generateRecords(TENANTS, PER_TENANT, Date.UTC(2026, 10, 1));
    const acked = new Set<string>();
    const sentOrder = new Map<string, number>();
    const tenantOfId = new Map<string, string>();
    let requests = 0;
    const refused = new Map<number, number>();
    const gaveUp = new Map<number, number>();
    let retried = 0;
    let replayed = 0;
    const totalRequests = TENANTS.length * Math.ceil(PER_TENANT / REQUEST_RECORDS);
    const ports = () => collectors.map((collector) => collector.port);
    // Each tenant has two senders, starting on one collector each; a request refused by one is
    // resent (same Idempotency-Key) to the other, which the sender then keeps using.
    const sender = async (tenant: string, which: number) => {
      const lines = input.get(tenant) ?? [];
      let target = which;
      for (let chunk = which; chunk * REQUEST_RECORDS < lines.length; chunk += 2) {
        const part = lines.slice(chunk * REQUEST_RECORDS, (chunk + 1) * REQUEST_RECORDS);
        part.forEach((line, i) => {
          sentOrder.set(idOf(line), chunk * REQUEST_RECORDS + i);
          tenantOfId.set(idOf(line), tenant);
        });
        const sent = await forward(ports, target, tenant, part);
        requests += 1;
        target = sent.target;
        for (const status of sent.refused) refused.set(status, (refused.get(status) ?? 0) + 1);
        if (sent.refused.length > 0) retried += 1;
        if (sent.answer.status === 201) {
          for (const line of part) acked.add(idOf(line));
          // The strongest case: the lost answer hid a stored request, and the resend must not store it again.
          if (sent.answer.replayed) replayed += 1;
        } else gaveUp.set(sent.answer.status, (gaveUp.get(sent.answer.status) ?? 0) + 1);
        // Paced, so that the faults below strike while records flow.
        await sleep(PACE_MS);
      }
    };
    // Each fault strikes while records are flowing; the restarts run beside the senders.
    const restarts: Promise<unknown>[] = [];
    // The records of the watched tenant committed before its worker died (by sequence).
    let appliedBeforeKill = 0;
    const faults = (async () => {
      await until(() => requests >= totalRequests * 0.15);
      // Under load the workers may not have applied anything yet: the kill must fall inside the
      // watched tenant's windows, so some of its records are committed first.
      while ((await lastSeqOf(fresh.url, watchedTenant)) === 0) await sleep(250);
      // The worker that owns the watched tenant's stream partition: its windows must survive the move.
      const owners = await Promise.all(workers.map(async (worker) => (await readiness(worker)).scale));
      const victim = owners.findIndex((owner) => owner?.partitions_owned.includes(watchedPartition));
      assert.ok(victim >= 0, `a worker owns stream partition ${watchedPartition}: ${JSON.stringify(owners)}`);
      await killNode(workers[victim]!);
      appliedBeforeKill = await lastSeqOf(fresh.url, watchedTenant);
      phase(
        `killed worker ${victim} (kill -9), owner of stream partition ${watchedPartition} (seq ${appliedBeforeKill})`,
      );
      restarts.push(sleep(1_000).then(async () => (workers[victim] = await node('work-a2', 'worker'))));
      await until(() => requests >= totalRequests * 0.35);
      const collectorPort = collectors[0]?.port;
      // Frozen first, as a hung node is: what it had sent JetStream reaches it and is stored, but
      // the answers never leave, so those requests' resends find their first attempt stored.
      collectors[0]?.child.process.kill('SIGSTOP');
      await sleep(1_000);
      await killNode(collectors[0]!);
      phase('froze collector a for 1 s, then killed it (kill -9)');
      restarts.push(sleep(1_000).then(async () => (collectors[0] = await node('col-a2', 'collector', collectorPort))));
      await until(() => requests >= totalRequests * 0.55);
      nats.kill(0);
      phase('killed NATS server 0 (kill -9)');
      restarts.push(sleep(3_000).then(() => nats.restart(0)));
      await Promise.all(restarts);
      phase('every killed process restarted');
    })();
    await Promise.all(TENANTS.flatMap((tenant) => [sender(tenant, 0), sender(tenant, 1)]));
    await faults;
    phase(
      `sent: ${acked.size} records acknowledged; refused attempts by status ${JSON.stringify([...refused])}; ` +
        `${retried} requests resent, ${replayed} of them had been stored by an earlier attempt; ` +
        `given up by last status ${JSON.stringify([...gaveUp])}`,
    );
    assert.ok(
      acked.size >= 0.99 * TENANTS.length * PER_TENANT,
      `nearly every record is acknowledged once refused requests are resent (${acked.size})`,
    );

    // Every acknowledged record arrives; none twice; nothing unacknowledged more than once.
    let stored: StoredRow[] = [];
    const deadline = Date.now() + 90_000;
    for (;;) {
      stored = (await storedRecords(fresh.url)).filter((row) => row.id !== '');
      const ids = new Set(stored.map((row) => row.id));
      if ([...acked].every((id) => ids.has(id))) break;
      if (Date.now() > deadline) {
        const missing = [...acked]
          .filter((id) => !ids.has(id))
          .map((id) => ({
            tenant: tenantOfId.get(id) ?? '?',
            request: Math.floor((sentOrder.get(id) ?? 0) / REQUEST_RECORDS),
          }));
        const report = await missingReport(fresh.url, missing, nodes);
        assert.fail(`only ${ids.size} of ${acked.size} acknowledged records stored\n${report}\n${nats.logs()}`);
      }
      await sleep(1_000);
    }
    phase('every acknowledged record stored');
    const consumerRestarts = nodes
      .map((node) => (node.child.stdout() + node.child.stderr()).split('restarting its consumer').length - 1)
      .reduce((a, b) => a + b, 0);
    phase(`stream partition consumers restarted after a delivery was lost on its way: ${consumerRestarts}`);
    const counts = new Map<string, number>();
    for (const row of stored) counts.set(row.id, (counts.get(row.id) ?? 0) + 1);
    const duplicated = [...counts].filter(([, n]) => n > 1);
    assert.deepEqual(duplicated.slice(0, 5), [], 'no record is stored twice');
    // Per tenant and sender, stored order is send order.
    for (const tenant of TENANTS) {
      for (const which of [0, 1]) {
        const mine = stored.filter(
          (row) => row.tenant === tenant && Math.floor((sentOrder.get(row.id) ?? 0) / REQUEST_RECORDS) % 2 === which,
        );
        const positions = mine.map((row) => sentOrder.get(row.id) ?? -1);
        assert.ok(
          positions.every((position, i) => i === 0 || position > (positions[i - 1] ?? -1)),
          `${tenant}: sender ${which}'s records are stored in the order sent`,
        );
      }
    }
    for (const worker of workers) {
      const status = await readiness(worker);
      assert.equal(status.status, 'ready', JSON.stringify(status));
    }

    // Detection runs in each batch's apply: once the workers are idle it has seen every record
    // stored. Then the embedded single process gets the same input in the same order.
    await waitForIdle(fresh.url, workers, 120_000);
    stored = (await storedRecords(fresh.url)).filter((row) => row.id !== '');
    phase('cluster workers idle');
    const embedded = await embeddedOutcome(dir, stored, t);
    phase('embedded run done');
    const cluster = await openDatabase({ databaseUrl: fresh.url, dataDir: dir });
    try {
      const outcome = await detectionOutcome(cluster);
      assert.ok(outcome.observations.length > 0, 'the input triggers rules');
      const volume = await cluster.db
        .selectFrom('observations')
        .select('record_seqs')
        .where('rule_id', '=', WEB_VOLUME_ID)
        .where('tenant_id', '=', watchedTenant)
        .execute();
      const spanning = volume.filter((row) => {
        const seqs = JSON.parse(row.record_seqs) as number[];
        return seqs.some((seq) => seq <= appliedBeforeKill) && seqs.some((seq) => seq > appliedBeforeKill);
      });
      assert.ok(appliedBeforeKill > 0 && spanning.length > 0, 'an event_count window spans the kill');
      const missing = embedded.observations.filter((item) => !outcome.observations.includes(item));
      const extra = outcome.observations.filter((item) => !embedded.observations.includes(item));
      assert.deepEqual(
        { missing: missing.slice(0, 5), extra: extra.slice(0, 5) },
        { missing: [], extra: [] },
        'observations equal the embedded ones',
      );
      assert.deepEqual(outcome.observations, embedded.observations, 'observations equal the embedded ones');
      assert.deepEqual(outcome.cases, embedded.cases, 'cases equal the embedded ones');
    } finally {
      await cluster.close();
    }
  },
);

function idOf(line: string): string {
  return (JSON.parse(line) as { scale_id: string }).scale_id;
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await sleep(50);
}

async function readiness(
  node: NodeProcess,
): Promise<{ status: string; scale?: { partitions_owned: number[]; consumer_lag: Record<string, number> } }> {
  const response = await fetch(`http://127.0.0.1:${node.port}/readyz`);
  return (await response.json()) as {
    status: string;
    scale?: { partitions_owned: number[]; consumer_lag: Record<string, number> };
  };
}

async function lastSeqOf(databaseUrl: string, tenantId: number): Promise<number> {
  const client = await connect(databaseUrl);
  try {
    const { rows } = await client.query<{ last: string | null }>(
      'SELECT max(seq)::text AS last FROM telemetry_records WHERE tenant_id = $1',
      [tenantId],
    );
    return Number(rows[0]?.last ?? 0);
  } finally {
    await client.end();
  }
}

/** Until no owned stream partition has messages left and the record count has stood still for 3 s. */
async function waitForIdle(databaseUrl: string, workers: NodeProcess[], timeoutMs: number): Promise<void> {
  const database = await openDatabase({ databaseUrl, dataDir: '' });
  try {
    const deadline = Date.now() + timeoutMs;
    let last = -1;
    let still = 0;
    for (;;) {
      const lags = await Promise.all(
        workers.map(async (worker) =>
          Object.values((await readiness(worker)).scale?.consumer_lag ?? {}).reduce((sum, n) => sum + n, 0),
        ),
      );
      const { rows } = await sql<{ n: string }>`SELECT count(*)::text AS n FROM telemetry_records`.execute(database.db);
      const count = Number(rows[0]?.n ?? 0);
      still = count === last && lags.every((lag) => lag === 0) ? still + 1 : 0;
      last = count;
      if (still >= 3) return;
      if (Date.now() > deadline) assert.fail(`the workers did not become idle: lag ${JSON.stringify(lags)}`);
      await sleep(1_000);
    }
  } finally {
    await database.close();
  }
}

/** The embedded single process (SQLite) fed the stored records, tenant by tenant in log order. */
async function embeddedOutcome(dir: string, stored: StoredRow[], t: { after(fn: () => Promise<void>): void }) {
  const dataDir = path.join(dir, 'embedded');
  const server = await startNode('embedded', ['--data', dataDir, '--rule-paths', path.join(dir, 'rules')]);
  t.after(async () => {
    await stopChild(server.child, 5_000);
  });
  const database = await openDatabase({ databaseUrl: '', dataDir });
  try {
    for (const codeName of TENANTS) await createTenant(database.db, { codeName });
    await Promise.all(
      TENANTS.map(async (tenant) => {
        const lines = stored.filter((row) => row.tenant === tenant).map((row) => row.record);
        for (let i = 0; i < lines.length; i += 1_000)
          assert.equal(await postRecords(server.port, tenant, lines.slice(i, i + 1_000)), 201);
      }),
    );
    const deadline = Date.now() + 120_000;
    for (;;) {
      const body = (await (await fetch(`http://127.0.0.1:${server.port}/readyz`)).json()) as {
        detection_lag_records: number;
      };
      if (body.detection_lag_records === 0) break;
      if (Date.now() > deadline) assert.fail('the embedded detection did not catch up');
      await sleep(500);
    }
    return await detectionOutcome(database);
  } finally {
    await database.close();
  }
}

/**
 * Observations and cases as comparable text: what they say and which records (by their unique
 * ids) they rest on, not their own ids, sequence numbers or times taken from receive times.
 */
async function detectionOutcome(database: Database): Promise<{ observations: string[]; cases: string[] }> {
  const records = await database.db.selectFrom('telemetry_records').select(['seq', 'record']).execute();
  const idBySeq = new Map(records.map((row) => [row.seq, (JSON.parse(row.record) as { scale_id?: string }).scale_id]));
  const observations = await database.db
    .selectFrom('observations as o')
    .innerJoin('tenants as t', 't.id', 'o.tenant_id')
    .select(['t.code_name', 'o.rule_id', 'o.level', 'o.host', 'o.record_seqs'])
    .execute();
  const cases = await database.db
    .selectFrom('cases as c')
    .innerJoin('tenants as t', 't.id', 'c.tenant_id')
    .select(['t.code_name', 'c.title', 'c.severity', 'c.status', 'c.observation_count', 'c.max_level', 'c.rules'])
    .execute();
  return {
    observations: observations
      .map((row) => {
        const ids = (JSON.parse(row.record_seqs) as number[]).map((seq) => idBySeq.get(seq)).sort();
        return JSON.stringify([row.code_name, row.rule_id, row.level, row.host, ids]);
      })
      .sort(),
    cases: cases
      .map((row) =>
        JSON.stringify([
          row.code_name,
          row.title,
          row.severity,
          row.status,
          row.observation_count,
          row.max_level,
          row.rules,
        ]),
      )
      .sort(),
  };
}
