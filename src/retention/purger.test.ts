// The purger's schedule: the first pass an interval after start, then an interval after each
// pass ends, a failed one included (retention is not urgent: no pass is retried sooner).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Tables } from '../storage/schema.js';
import { RetentionPurger } from './purger.js';

test('passes run an interval apart from an interval after start, failed ones reported and retried as late', async () => {
  const failedAt: number[] = [];
  const down = {
    insertInto: () => {
      throw new Error('database down');
    },
  } as unknown as Kysely<Tables>;
  const purger = new RetentionPurger({
    db: down,
    purge: { deleteIndexEntries: () => Promise.resolve(), reclaimPages: () => Promise.resolve() },
    holder: 'test',
    onError: () => failedAt.push(performance.now()),
  });
  const started = performance.now();
  purger.start(40);
  await sleep(20);
  const atStart = failedAt.length;
  await sleep(140);
  await purger.stop();
  const count = failedAt.length;
  assert.equal(atStart, 0, 'no pass at start');
  assert.ok(count >= 2 && count <= 4, `passes at 40, 80, 120 ms: ${count}`);
  assert.ok(failedAt[0]! - started >= 38, 'the first an interval after start');
  const gaps = failedAt.slice(1).map((at, i) => at - failedAt[i]!);
  assert.ok(
    gaps.every((gap) => gap >= 38 && gap < 200),
    `an interval apart, not backing off: ${gaps.join(', ')}`,
  );
  await sleep(60);
  assert.equal(failedAt.length, count, 'none after stop');
});
