// The source shape of an unrecognised record and its sample: bounded, stable whatever the key
// order, never carrying credential-like values; one chunk's tally per tenant and shape.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SHAPE_LIMITS, UnrecognisedCounter, sampleOf, shapeKeys, shapeName } from './unrecognised-shape.js';

test('the shape is the sorted top-level keys, bounded in number and length', () => {
  assert.deepEqual(shapeKeys({ b: 1, a: { nested: 2 }, c: null }), ['a', 'b', 'c']);
  assert.equal(shapeName(shapeKeys({ c: 1, a: 2 })), shapeName(shapeKeys({ a: 3, c: 4 })));
  assert.equal(shapeName([]), '(no keys)');
  const wide = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${String(i).padStart(2, '0')}`, i]));
  const keys = shapeKeys(wide);
  assert.equal(keys.length, SHAPE_LIMITS.maxKeys + 1);
  assert.equal(keys.at(-1), `+${30 - SHAPE_LIMITS.maxKeys} more`);
  assert.equal(shapeKeys({ ['x'.repeat(100)]: 1 })[0]!.length, SHAPE_LIMITS.maxKeyLength);
});

test('the sample redacts credential-like values at any depth and is cut to its length', () => {
  const sample = sampleOf({
    user: 'alice',
    password: 'hunter2',
    headers: { Authorization: 'Bearer abc', accept: '*/*' },
  });
  assert.equal(
    sample,
    '{"user":"alice","password":"[redacted]","headers":{"Authorization":"[redacted]","accept":"*/*"}}',
  );
  const long = sampleOf({ message: 'm'.repeat(5_000) });
  assert.equal(long.length, SHAPE_LIMITS.maxSampleLength + 1);
  assert.ok(long.endsWith('m…'));
});

test('a chunk is tallied per tenant and shape, the newest record giving the sample', () => {
  const counter = new UnrecognisedCounter();
  counter.add(1, { a: 1, b: 'old' }, 2_000);
  counter.add(1, { b: 'new', a: 2 }, 3_000);
  counter.add(1, { b: 'older', a: 0 }, 1_000);
  counter.add(2, { a: 1, b: 'other tenant' }, 2_000);
  const tallies = counter.take();
  assert.deepEqual(
    tallies.map((tally) => [tally.tenantId, tally.shape, tally.records, tally.firstSeen, tally.lastSeen, tally.sample]),
    [
      [1, 'a,b', 3, 1_000, 3_000, '{"b":"new","a":2}'],
      [2, 'a,b', 1, 2_000, 2_000, '{"a":1,"b":"other tenant"}'],
    ],
  );
  assert.deepEqual(counter.take(), [], 'take empties the counter');
});
