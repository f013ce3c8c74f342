// The write gate: one holder at a time, a waiter that gives up after its time as SQLite's busy
// timeout would, and a dead holder's turn given back by the main thread.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { threadId } from 'node:worker_threads';
import { releaseFor, writeGateFor, WriteGate } from './sqlite-write-gate.js';

test('a gate held elsewhere makes a writer wait, then give up with SQLITE_BUSY; the holder dying opens it', () => {
  const shared = writeGateFor(`/tmp/gate-test-${process.pid}.db`);
  assert.equal(writeGateFor(`/tmp/gate-test-${process.pid}.db`), shared, 'one gate per database file');
  const cells = new Int32Array(shared);
  const gate = new WriteGate(shared);
  gate.enter(100);
  assert.equal(Atomics.load(cells, 0), threadId + 1, 'held by this thread');
  gate.leave();
  assert.equal(Atomics.load(cells, 0), 0, 'open again');

  // Another thread (id 41) holds it: this one waits its time out.
  Atomics.store(cells, 0, 42);
  const started = performance.now();
  assert.throws(
    () => gate.enter(120),
    (error: Error & { code?: string }) => error.code === 'SQLITE_BUSY',
  );
  assert.ok(performance.now() - started >= 100, 'it waited before giving up');
  gate.leave();
  assert.equal(Atomics.load(cells, 0), 42, 'leaving a gate this thread does not hold changes nothing');

  releaseFor(shared, 7);
  assert.equal(Atomics.load(cells, 0), 42, 'only the thread that holds it is released for');
  releaseFor(shared, 41);
  assert.equal(Atomics.load(cells, 0), 0);
  gate.enter(100);
  gate.leave();
});
