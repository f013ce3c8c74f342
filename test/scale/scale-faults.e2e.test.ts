// Faults of the scale-out mode beyond kill -9 (docs/scale.md, What survives), on one cluster: a
// PostgreSQL server of the test's own (initdb on a free port, since it is killed), a 3-node NATS
// cluster, an API node that is also a collector, a second collector and two workers with a 4 s
// lease over 4 stream partitions.
// A worker paused mid-batch past its lease loses its stream partitions to the other, which
// applies on; resumed, it writes nothing more under its old lease and rejoins. A collector paused
// with requests in hand: their resends to the other collector are acknowledged, and whatever the
// paused one publishes once resumed is not stored again. PostgreSQL killed -9 under load and
// restarted: the API node refuses writes while it is down, and every node recovers. The stream
// leader paused past the election timeout: ingest continues under a new leader. After each
// fault every acknowledged record (answered 201: durable in JetStream) is stored exactly once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect as natsConnect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { openDatabase } from '../../src/storage/database.js';
import { createTenant } from '../../src/identity/tenants/tenant-service.js';
import { tenantStreamPartition } from '../../src/record-log/jetstream-codec.js';
import { tempDir } from '../helpers/databases.js';
import { NatsCluster, natsServerBinary } from '../helpers/nats.js';
import { PostgresServer, postgresBinaries } from '../helpers/postgres-server.js';
import { stopChild } from '../helpers/processes.js';
import { connect, startNode, type NodeProcess } from '../helpers/scale.js';
import { Ledger, until } from '../helpers/fault-senders.js';

const PARTITIONS = 4;
const STREAM = 'SIGHTLINE_RECORDS';
const PASSWORD = 'a long enough operator password';
const natsBinary = natsServerBinary('the scale-out fault tests are');
const pgBin = postgresBinaries('the scale-out fault tests are');

interface Readiness {
  status: string;
  reasons: string[];
  scale?: { partitions_owned: number[] };
}

async function readiness(node: NodeProcess): Promise<Readiness | undefined> {
  try {
    const response = await fetch(`http://127.0.0.1:${node.port}/readyz`, { signal: AbortSignal.timeout(3_000) });
    return (await response.json()) as Readiness;
  } catch {
    // Not answering now: the caller asks again.
    return undefined;
  }
}

const owned = async (node: NodeProcess) => (await readiness(node))?.scale?.partitions_owned ?? [];

test(
  'scale-out faults: paused worker fenced, paused collector, PostgreSQL killed -9, NATS stream leader paused',
  { skip: !natsBinary || !pgBin ? 'needs nats-server and PostgreSQL server binaries' : false, timeout: 300_000 },
  async (t) => {
    if (!natsBinary || !pgBin) return;
    const began = Date.now();
    const phase = (what: string) => t.diagnostic(`${((Date.now() - began) / 1000).toFixed(1)} s: ${what}`);
    const dir = tempDir('sightline-faults-');
    const nodes: NodeProcess[] = [];
    let closeLedger = () => Promise.resolve();
    let nats: NatsCluster | undefined;
    let postgres: PostgresServer | undefined;
    t.after(async () => {
      await closeLedger();
      for (const node of nodes) node.child.process.kill('SIGCONT');
      await Promise.all(nodes.map((node) => stopChild(node.child, 5_000)));
      await nats?.stop();
      await postgres?.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    });
    postgres = await PostgresServer.start(pgBin);
    nats = await NatsCluster.start(natsBinary, dir);
    const databaseUrl = await postgres.createDatabase('sightline');
    const common = ['--queue', nats.urls, '--database', databaseUrl, '--queue-partitions', String(PARTITIONS)];
    common.push('--queue-lease', '4s');
    const node = async (name: string, role: string) => {
      const args = ['--role', role, ...common, '--data', path.join(dir, name)];
      const started = await startNode(name, args, undefined, { SIGHTLINE_ADMIN_PASSWORD: PASSWORD });
      nodes.push(started);
      return started;
    };
    const report = async () => {
      const logs = nodes.map(
        (one) => `--- ${one.name}\n${one.child.stderr().slice(-2_000)}${one.child.stdout().slice(-2_000)}`,
      );
      let partitions = '';
      try {
        const client = await connect(databaseUrl);
        try {
          const { rows } = await client.query('SELECT partition, applied_seq, owner_epoch, owner FROM log_partitions');
          partitions = JSON.stringify(rows);
        } finally {
          await client.end();
        }
      } catch (error) {
        partitions = `unreadable: ${(error as Error).message}`;
      }
      const views = await Promise.all(nodes.map(async (one) => `${one.name}: ${JSON.stringify(await readiness(one))}`));
      return [`log_partitions: ${partitions}`, ...views, ...logs, nats.logs(), `--- postgres\n${postgres.logs()}`].join(
        '\n',
      );
    };

    // The API node first (a collector too): it migrates the schema and makes the operator account
    // (a sign-in is its API write below). Then tenants until each stream partition has one.
    const api = await node('api', 'collector,api');
    const tenantOn = new Map<number, string>();
    const database = await openDatabase({ databaseUrl, dataDir: dir });
    for (let i = 0; tenantOn.size < PARTITIONS; i += 1) {
      const tenant = await createTenant(database.db, { codeName: `fault${i}` });
      const partition = tenantStreamPartition(tenant.id, PARTITIONS);
      if (!tenantOn.has(partition)) tenantOn.set(partition, tenant.codeName);
    }
    await database.close();
    const tenants = [...tenantOn.values()];
    const [collector, workA, workB] = await Promise.all([
      node('col-b', 'collector'),
      node('work-a', 'worker'),
      node('work-b', 'worker'),
    ]);
    const collectors = [api, collector];
    const workers = [workA, workB];
    // A sign-in writes a session: an API write, which must not be acknowledged without PostgreSQL.
    const signIn = () =>
      fetch(`http://127.0.0.1:${api.port}/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'admin@localhost', password: PASSWORD }),
        signal: AbortSignal.timeout(20_000),
      });
    const ledger = new Ledger(() => collectors.map((one) => one.port));
    closeLedger = () => ledger.close();
    t.afterEach(() => ledger.stopFlows());
    const balanced = () =>
      until(
        'each worker owns half the stream partitions',
        async () => (await Promise.all(workers.map(owned))).every((mine) => mine.length === PARTITIONS / 2),
        30_000,
        report,
      );
    await balanced();
    phase('cluster up');

    await t.test('a worker paused mid-batch past its lease is fenced out; resumed, it rejoins', async () => {
      const [zombie, survivor] = workers as [NodeProcess, NodeProcess];
      const zombiePartitions = await owned(zombie);
      const tenant = tenantOn.get(zombiePartitions[0] ?? -1) ?? '';
      const epochs = async () => {
        const client = await connect(databaseUrl);
        try {
          const { rows } = await client.query<{ partition: number; owner_epoch: string }>(
            'SELECT partition, owner_epoch FROM log_partitions',
          );
          return new Map(rows.map((row) => [row.partition, Number(row.owner_epoch)]));
        } finally {
          await client.end();
        }
      };
      const before = await epochs();
      // The test holds back inserts of records, so the zombie's next batch waits inside its
      // transaction, its stream partition's row locked; it is paused there.
      const blocker = await connect(databaseUrl);
      const activity = async () =>
        JSON.stringify(
          (
            await blocker.query(
              `SELECT a.pid, state, l.relation::regclass AS waits_for, l.mode, left(query, 60) AS query FROM pg_stat_activity a LEFT JOIN pg_locks l ON l.pid = a.pid AND NOT l.granted WHERE datname = current_database()`,
            )
          ).rows,
        );
      const stateOf = async (pid: number) => {
        const { rows } = await blocker.query<{ state: string }>('SELECT state FROM pg_stat_activity WHERE pid = $1', [
          pid,
        ]);
        return rows[0]?.state;
      };
      let pid = 0;
      try {
        await blocker.query('BEGIN');
        await blocker.query('LOCK TABLE telemetry_records IN EXCLUSIVE MODE');
        assert.ok(await ledger.send(tenant, 5), 'the request is acknowledged');
        await until(
          'the zombie applies a batch',
          async () => {
            const { rows } = await blocker.query<{ pid: number }>(
              `SELECT pid FROM pg_locks WHERE NOT granted AND relation = 'telemetry_records'::regclass AND mode = 'RowExclusiveLock'`,
            );
            pid = rows[0]?.pid ?? 0;
            return pid !== 0;
          },
          30_000,
          activity,
        );
        zombie.child.process.kill('SIGSTOP');
        await blocker.query('ROLLBACK');
        await until('the paused worker has inserted its batch, uncommitted', async () => {
          return (await stateOf(pid)) === 'idle in transaction';
        });
        phase('worker a paused mid-batch (its records inserted, not committed)');
        const flow = ledger.flow(tenants);
        // The paused transaction ends once it has waited a lease for the worker, releasing its
        // stream partition's row for the other worker's claim.
        await until(
          'the other worker owns every stream partition, and the paused transaction is gone',
          async () => (await owned(survivor)).length === PARTITIONS && (await stateOf(pid)) === undefined,
          30_000,
          async () => `${await activity()}\n${await report()}`,
        );
        phase('worker b took over every stream partition');
        await flow.stop();
        await ledger.expectStoredOnce(databaseUrl, report);
        phase('worker b applied the paused batch and more');
      } finally {
        zombie.child.process.kill('SIGCONT');
        await blocker.end();
      }
      const flow = ledger.flow(tenants);
      await until(
        'the resumed worker saw its lease lapse',
        () => (zombie.child.stdout() + zombie.child.stderr()).includes('lease connection lost'),
        20_000,
        report,
      );
      await balanced();
      await flow.stop();
      await ledger.expectStoredOnce(databaseUrl, report);
      const after = await epochs();
      for (const partition of zombiePartitions)
        assert.ok((after.get(partition) ?? 0) > (before.get(partition) ?? 0), `partition ${partition} changed hands`);
      assert.equal((await readiness(zombie))?.status, 'ready');
      phase(`worker a resumed and rejoined; ${ledger.summary()}`);
    });

    await t.test('a collector paused with requests in hand: their resends are stored once', async () => {
      const flow = ledger.flow(tenants, { start: 1, paceMs: 20 });
      await until('requests flow', () => ledger.acked.size > 0);
      const resentBefore = ledger.resent;
      const unansweredBefore = ledger.refused.get(0) ?? 0;
      collector.child.process.kill('SIGSTOP');
      try {
        await until('requests unanswered by the paused collector are acknowledged by the other', () => {
          return ledger.resent >= resentBefore + tenants.length;
        });
        assert.ok(
          (ledger.refused.get(0) ?? 0) >= unansweredBefore + tenants.length,
          'the paused collector answered none',
        );
      } finally {
        collector.child.process.kill('SIGCONT');
      }
      phase('collector b paused, then resumed');
      await until('the resumed collector answers', async () => (await readiness(collector))?.status === 'ready');
      const acked = ledger.acked.size;
      await until('the resumed collector acknowledges again', () => ledger.acked.size > acked + tenants.length);
      await flow.stop();
      await ledger.expectStoredOnce(databaseUrl, report);
      phase(ledger.summary());
    });

    await t.test('PostgreSQL killed -9 under load and restarted: nothing lost, nothing twice', async () => {
      const flow = ledger.flow(tenants);
      await until('requests flow', () => ledger.acked.size > 0);
      await postgres.kill();
      phase('PostgreSQL killed (kill -9 of every process)');
      try {
        await until('the API node is not ready', async () => (await readiness(api))?.status === 'not_ready');
        const refused = (await signIn()).status;
        assert.ok(refused >= 500, `a sign-in while PostgreSQL is down is not acknowledged (${refused})`);
        await until('a worker says PostgreSQL is failing', async () =>
          (await Promise.all(workers.map(readiness))).some((one) =>
            one?.reasons.some((reason) => reason.includes('PostgreSQL')),
          ),
        );
        // Down a while longer, as records keep arriving.
        await sleep(2_000);
      } finally {
        await postgres.restart();
      }
      phase('PostgreSQL restarted');
      for (const one of [api, collector, ...workers])
        await until(
          `${one.name} is ready again`,
          async () => (await readiness(one))?.status === 'ready',
          60_000,
          report,
        );
      await balanced();
      const acked = ledger.acked.size;
      await until('records are acknowledged after the restart', () => ledger.acked.size > acked + tenants.length);
      await flow.stop();
      await ledger.expectStoredOnce(databaseUrl, report);
      assert.equal((await signIn()).status, 200, 'the API node writes again');
      phase(`every node recovered; ${ledger.summary()}`);
    });

    await t.test('the stream leader paused past the election timeout: ingest continues, nothing lost', async () => {
      const leaderOf = async (url: string) => {
        const connection = await natsConnect({ servers: [url], timeout: 2_000, maxReconnectAttempts: 0 });
        try {
          const manager = await jetstreamManager(connection, { timeout: 2_000 });
          const info = await manager.streams.info(STREAM);
          return { leader: info.cluster?.leader ?? '', replicas: info.cluster?.replicas ?? [] };
        } finally {
          await connection.close();
        }
      };
      const leader = nats.indexOf((await leaderOf(nats.urls.split(',')[0] ?? '')).leader);
      assert.ok(leader >= 0, 'the stream has a leader');
      const other = nats.url((leader + 1) % 3);
      const flow = ledger.flow(tenants);
      await until('requests flow', () => ledger.acked.size > 0);
      nats.signal(leader, 'SIGSTOP');
      const pausedAt = Date.now();
      try {
        await until(
          'another server leads the stream',
          async () => {
            const now = await leaderOf(other).catch(() => undefined);
            return now !== undefined && now.leader !== '' && nats.indexOf(now.leader) !== leader;
          },
          60_000,
          report,
        );
        phase(`stream leader n${leader} paused; a new leader after ${(Date.now() - pausedAt) / 1000} s`);
        const acked = ledger.acked.size;
        await until(
          'records are acknowledged under the new leader',
          () => ledger.acked.size > acked + tenants.length,
          60_000,
          report,
        );
        // Longer than any election timeout (nats-server 2.9: at most 9 s).
        await until('the leader has been paused for 10 s', () => Date.now() - pausedAt > 10_000);
      } finally {
        nats.signal(leader, 'SIGCONT');
      }
      phase('former stream leader resumed');
      await until(
        'every replica is current again',
        async () => {
          const now = await leaderOf(other).catch(() => undefined);
          return now?.replicas.length === 2 && now.replicas.every((replica) => replica.current);
        },
        60_000,
        report,
      );
      phase('every replica current');
      await flow.stop();
      phase('senders stopped');
      await ledger.expectStoredOnce(databaseUrl, report);
      phase(ledger.summary());
    });
  },
);
