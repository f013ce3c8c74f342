import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GroupCommitQueue } from './group-commit.js';
import type { LogPosition, RecordBatch, RecordLogWriter } from './record-log.js';
import { AppError } from '../core/errors.js';

function batch(label: string, count = 1): RecordBatch {
  return {
    tenantId: 1,
    receivedAt: 0,
    records: Array.from({ length: count }, () => label),
    eventTimes: [Number.NaN],
    metas: [null],
  };
}

/** A writer whose commits finish only when the test says so, recording what each got. */
class ManualWriter implements RecordLogWriter {
  readonly healthy = true;
  readonly fault = undefined;
  ready(): Promise<void> {
    return Promise.resolve();
  }
  readonly calls: string[][] = [];
  private releases: ((error?: Error) => void)[] = [];

  append(batches: RecordBatch[]): Promise<LogPosition> {
    this.calls.push(batches.map((b) => b.records[0]!));
    const position = { seq: this.calls.length, txId: '0' };
    return new Promise((resolve, reject) => this.releases.push((error) => (error ? reject(error) : resolve(position))));
  }

  release(error?: Error): void {
    this.releases.shift()?.(error);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

test('batches that arrive during a commit share the next commit', async () => {
  const writer = new ManualWriter();
  const queue = new GroupCommitQueue(writer, { maxPendingBytes: 1_000_000 });
  const first = queue.append(batch('a'), 10);
  const rest = ['b', 'c', 'd'].map((label) => queue.append(batch(label), 10));
  await tick();
  assert.deepEqual(writer.calls, [['a']], 'the first commit starts at once with what was there');
  writer.release();
  await first;
  await tick();
  assert.deepEqual(writer.calls, [['a'], ['b', 'c', 'd']], 'the next commit takes everything that queued');
  writer.release();
  await Promise.all(rest);
  assert.equal(queue.pendingBytes, 0);
});

test('a request is not answered before its commit finishes', async () => {
  const writer = new ManualWriter();
  const queue = new GroupCommitQueue(writer, { maxPendingBytes: 1_000_000 });
  let done = false;
  const pending = queue.append(batch('a'), 10).then(() => (done = true));
  await tick();
  assert.equal(done, false);
  writer.release();
  await pending;
  assert.equal(done, true);
});

test('past the memory limit new batches are refused with overloaded and Retry-After', async () => {
  const writer = new ManualWriter();
  const queue = new GroupCommitQueue(writer, { maxPendingBytes: 100 });
  const accepted = queue.append(batch('a'), 80);
  await assert.rejects(queue.append(batch('b'), 30), (error: unknown) => {
    assert.ok(error instanceof AppError);
    assert.equal(error.code, 'overloaded');
    assert.equal(error.status, 503);
    assert.equal(error.headers['Retry-After'], '1');
    return true;
  });
  assert.ok(!queue.overLimit && queue.pendingBytes === 80);
  writer.release();
  await accepted;
  // An empty queue takes even a batch larger than the limit, so no body is refused for good.
  const large = queue.append(batch('c'), 500);
  await tick();
  writer.release();
  await large;
});

test('when a shared commit fails, each batch is retried alone so only the bad one fails', async () => {
  const failing = new Set(['bad']);
  const calls: string[][] = [];
  const writer: RecordLogWriter = {
    healthy: true,
    fault: undefined,
    ready: () => Promise.resolve(),
    append(batches) {
      calls.push(batches.map((b) => b.records[0]!));
      if (batches.some((b) => failing.has(b.records[0]!))) return Promise.reject(new Error('constraint'));
      return Promise.resolve({ seq: calls.length, txId: '0' });
    },
    close: () => Promise.resolve(),
  };
  const queue = new GroupCommitQueue(writer, { maxPendingBytes: 1_000_000 });
  const first = queue.append(batch('first'), 1);
  const results = await Promise.allSettled([
    first,
    queue.append(batch('ok1'), 1),
    queue.append(batch('bad'), 1),
    queue.append(batch('ok2'), 1),
  ]);
  assert.deepEqual(
    results.map((r) => r.status),
    ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
  );
  assert.deepEqual(calls, [['first'], ['ok1', 'bad', 'ok2'], ['ok1'], ['bad'], ['ok2']]);
});

test('a group stops at its byte limit, and a batch larger than the limit still goes alone', async () => {
  const writer = new ManualWriter();
  const queue = new GroupCommitQueue(writer, { maxPendingBytes: 1_000, maxGroupBytes: 100 });
  const answers = [
    queue.append(batch('a'), 10),
    queue.append(batch('b'), 60),
    queue.append(batch('c'), 30),
    queue.append(batch('d'), 20),
    queue.append(batch('e'), 150),
  ];
  // 'a' went at once; then b + c fit in 100 bytes, d does not; e is over the limit on its own.
  for (let commit = 0; commit < 4; commit++) {
    await new Promise((resolve) => setImmediate(resolve));
    writer.release();
  }
  await Promise.all(answers);
  assert.deepEqual(writer.calls, [['a'], ['b', 'c'], ['d'], ['e']]);
});

test('once it stops taking, queued batches are refused unwritten; the commit under way still finishes', async () => {
  const writer = new ManualWriter();
  const queue = new GroupCommitQueue(writer, { maxPendingBytes: 1_000_000 });
  const committing = queue.append(batch('a'), 10);
  const queued = [queue.append(batch('b'), 10), queue.append(batch('c'), 10)];
  await tick();
  queue.stopTaking(() => new Error('closing'));
  const later = queue.append(batch('d'), 10);
  const drained = queue.drain();
  writer.release();
  await drained;
  assert.deepEqual(await committing, { duplicate: false }, 'the group being committed is still acknowledged');
  for (const refused of [...queued, later]) await assert.rejects(refused, /closing/);
  assert.deepEqual(writer.calls, [['a']], 'nothing queued or appended after the stop was written');
  assert.equal(queue.pendingBytes, 0);
});
