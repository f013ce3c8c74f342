// The dispatcher's timing: a delivery's retries double up to a cap with half of each wait random,
// and a dispatcher whose own database fails looks again ever more rarely, pokes or not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Tables } from '../storage/schema.js';
import type { RowLocks } from '../storage/row-locks.js';
import { Sealer } from '../identity/sso/sso-seal.js';
import { WebhookDispatcher, backoff } from './webhook-dispatcher.js';

test('a delivery is retried after a doubling wait, capped at an hour, the second half of it random', () => {
  assert.equal(
    backoff(1, 1_000, () => 0),
    500,
  );
  assert.equal(
    backoff(1, 1_000, () => 1),
    1_000,
  );
  assert.equal(
    backoff(3, 1_000, () => 1),
    4_000,
  );
  assert.equal(
    backoff(40, 1_000, () => 1),
    3_600_000,
  );
});

test('a dispatcher whose database fails reports it, and looks again ever more rarely', async () => {
  const failedAt: number[] = [];
  const down = {
    selectFrom: () => {
      throw new Error('database down');
    },
  } as unknown as Kysely<Tables>;
  const dispatcher = new WebhookDispatcher({
    db: down,
    locks: {} as RowLocks,
    sealer: new Sealer(Buffer.alloc(32)),
    policy: { allowLoopback: false, allowedNetworks: [] },
    timeoutMs: 1_000,
    retryBaseMs: 1_000,
    retryWindowMs: 60_000,
    caFile: '',
    pollMs: 20,
    onError: () => failedAt.push(performance.now()),
  });
  dispatcher.start();
  await sleep(250);
  const before = failedAt.length;
  // Something emitted during the backoff: the outage is not retried for it.
  dispatcher.poke();
  await sleep(20);
  await dispatcher.stop();
  assert.equal(failedAt.length, before);
  const gaps = failedAt.slice(1).map((at, i) => at - failedAt[i]!);
  assert.ok(failedAt.length >= 3 && failedAt.length <= 5, `failures at 0, 20, 60, 140 ms: ${failedAt.length}`);
  assert.ok(gaps[0]! >= 18 && gaps[1]! >= 38, `gaps double: ${gaps.join(', ')}`);
});
