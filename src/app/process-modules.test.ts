// Which modules a process runs and in what order: a single process consumes the record log
// itself; a scale-out node leaves that to its stream partitions' apply and runs the JetStream parts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { processModules } from './app.js';
import { startOrder } from './supervisor.js';
import type { Wiring } from './wiring.js';

// The module factories only close over the wiring; nothing is read before start.
const order = (scaled: boolean) =>
  startOrder(processModules({ scaled, parts: {} } as unknown as Wiring)).map((module) => module.name);

test('a single process runs the detection thread and the search index, not the scale-out parts', () => {
  const names = order(false);
  assert.ok(names.includes('detection') && names.includes('search_index'));
  assert.ok(!names.includes('scale'));
  assert.ok(names.indexOf('record_writer') < names.indexOf('queue'));
  assert.ok(names.indexOf('http') < names.indexOf('following'), 'the loops follow the log once the server logs');
});

test('a scale-out node runs the scale-out parts, and detects in each stream batch instead', () => {
  const names = order(true);
  assert.ok(names.includes('scale'));
  assert.ok(!names.includes('detection') && !names.includes('search_index'));
  assert.ok(names.indexOf('scale') < names.indexOf('http'));
});
