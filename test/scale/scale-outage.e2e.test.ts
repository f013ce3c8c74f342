// A scale-out node and its NATS server: started while NATS is down, the node keeps retrying,
// answers /readyz 503 saying why and the collector 503 with Retry-After; once NATS is up it
// becomes ready, stores what it acknowledges and reports the record log in /metrics. A node
// whose stream partition count differs from the stream's, or a split role without --queue, stops at
// start with exit code 2 and a message naming the setting.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { tempDir } from '../helpers/databases.js';
import { dropSchema, freshSchema } from '../helpers/postgres.js';
import { NatsCluster, natsServerBinary } from '../helpers/nats.js';
import { freePort, stopChild } from '../helpers/processes.js';
import { connect, postRecords, spawnCli, startNode, type NodeProcess } from '../helpers/scale.js';

const pgBase = process.env.SIGHTLINE_TEST_DATABASE_URL ?? '';
const binary = natsServerBinary('the scale-out outage tests are');
const METRICS_TOKEN = 'scale-outage-metrics-token';

test(
  'a node started while NATS is down retries, answers 503 with the reason, and works once NATS is up',
  { skip: !binary || !pgBase ? 'needs nats-server and PostgreSQL (see the warnings above)' : false, timeout: 180_000 },
  async (t) => {
    if (!binary) return;
    const dir = tempDir('sightline-outage-');
    const fresh = freshSchema(pgBase, 'outage');
    const natsPort = await freePort();
    let nats: NatsCluster | undefined;
    let node: NodeProcess | undefined;
    t.after(async () => {
      if (node) await stopChild(node.child, 5_000);
      await nats?.stop();
      await dropSchema(fresh.baseUrl, fresh.schema);
      fs.rmSync(dir, { recursive: true, force: true });
    });
    const queue = `nats://127.0.0.1:${natsPort}`;
    node = await startNode(
      'all',
      ['--queue', queue, '--database', fresh.url, '--data', path.join(dir, 'node')],
      undefined,
      {
        SIGHTLINE_METRICS_TOKEN: METRICS_TOKEN,
      },
    );
    const base = `http://127.0.0.1:${node.port}`;

    const notReady = await fetch(`${base}/readyz`);
    assert.equal(notReady.status, 503);
    const body = (await notReady.json()) as { reasons: string[]; scale: { queue: string } };
    assert.equal(body.scale.queue, 'unavailable');
    assert.ok(
      body.reasons.some((reason) => reason.startsWith('queue: NATS: unreachable')),
      JSON.stringify(body.reasons),
    );
    const refused = await fetch(`${base}/log_sink`, { method: 'POST', body: '{"message":"while down"}' });
    assert.equal(refused.status, 503);
    assert.ok(refused.headers.get('retry-after'), 'a 503 says when to retry');
    assert.equal(((await refused.json()) as { code: string }).code, 'overloaded');

    nats = await NatsCluster.start(binary, dir, 1, [natsPort]);
    for (let i = 0; ; i += 1) {
      if ((await fetch(`${base}/readyz`)).status === 200) break;
      if (i > 60) assert.fail(`not ready 30 s after NATS came up:\n${node.child.stdout()}${node.child.stderr()}`);
      await sleep(500);
    }
    assert.equal(await postRecords(node.port, 'demo', ['{"message":"after the outage","outage_id":1}']), 201);
    const client = await connect(fresh.url);
    try {
      for (let i = 0; ; i += 1) {
        const { rows } = await client.query<{ n: string }>(
          `SELECT count(*) AS n FROM telemetry_records WHERE record LIKE '%after the outage%'`,
        );
        if (rows[0]?.n === '1') break;
        if (i > 40) assert.fail('the acknowledged record was not applied');
        await sleep(250);
      }
    } finally {
      await client.end();
    }
    const ready = (await (await fetch(`${base}/readyz`)).json()) as {
      scale: { partitions_owned: number[]; maintenance_lease: boolean };
    };
    assert.equal(ready.scale.partitions_owned.length, 16, 'the only worker owns every partition');
    assert.equal(ready.scale.maintenance_lease, true, 'the only worker holds the maintenance lease');
    const metrics = await (
      await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text();
    assert.match(metrics, /^sightline_queue_connected 1$/m);
    assert.match(metrics, /^sightline_queue_partitions_owned 16$/m);
    assert.match(metrics, /^sightline_queue_consumer_lag_messages\{partition="0"\} \d+$/m);
    assert.match(metrics, /^sightline_queue_publish_seconds_count [1-9]/m);
    assert.match(metrics, /^sightline_queue_applied_records_total [1-9]/m);

    // The stream now has 16 stream partitions: a node configured for 4 refuses to start.
    const mismatched = spawnCli([
      'serve',
      '--queue',
      queue,
      '--queue-partitions',
      '4',
      '--database',
      fresh.url,
      '--data',
      path.join(dir, 'other'),
      '--port',
      '0',
    ]);
    assert.equal(await mismatched.exited, 2, mismatched.stderr());
    assert.match(
      mismatched.stderr(),
      /created with 16 stream partitions but --queue-partitions \(SIGHTLINE_QUEUE_PARTITIONS\) is 4/,
    );
  },
);

test('a split role without --queue stops at start with exit code 2, naming the setting', async () => {
  const child = spawnCli(['serve', '--role', 'worker', '--database', 'postgres://127.0.0.1:1/none', '--port', '0']);
  assert.equal(await child.exited, 2);
  assert.match(child.stderr(), /--role \(SIGHTLINE_ROLE\) worker needs --queue \(SIGHTLINE_QUEUE\)/);
});
