// The token buckets: a burst fits at once, the rate refills, a request is taken whole or not at
// all, one bigger than the burst never fits, and each of N nodes refills at the rate ÷ N.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IngestLimiter } from './ingest-limiter.js';

const limits = { recordsPerSecond: 10, recordsBurst: 20, bytesPerSecond: null, bytesBurst: null };

test('a tenant without limits is never refused', () => {
  const limiter = new IngestLimiter();
  assert.equal(limiter.take(1, 1_000_000, 1_000_000_000, 0), undefined);
  assert.equal(limiter.refuseEarly(1, 0), undefined);
});

test('the burst fits at once, then the rate; the refusal says when to retry', () => {
  const limiter = new IngestLimiter();
  limiter.setLimits(1, limits, 0);
  assert.equal(limiter.take(1, 20, 100, 0), undefined);
  assert.equal(limiter.refuseEarly(1, 0)?.code, 'rate_limited');
  const refused = limiter.take(1, 15, 100, 500);
  assert.ok(refused);
  assert.equal(refused.code, 'rate_limited');
  assert.equal(refused.headers['Retry-After'], '1', '5 records held, 10 more take a second');
  assert.deepEqual(
    { limit: refused.extensions.limit, rate: refused.extensions.rate },
    { limit: 'records_per_second', rate: 10 },
  );
  assert.equal(limiter.take(1, 15, 100, 1_500), undefined);
  assert.equal(limiter.take(2, 1000, 100, 1_500), undefined, 'another tenant is unaffected');
});

test('a request over the burst never fits: 413, and nothing is taken', () => {
  const limiter = new IngestLimiter();
  limiter.setLimits(1, { ...limits, bytesPerSecond: 100, bytesBurst: 100 }, 0);
  assert.equal(limiter.take(1, 21, 10, 0)?.code, 'request_exceeds_burst');
  assert.equal(limiter.take(1, 5, 101, 0)?.code, 'request_exceeds_burst');
  assert.equal(limiter.take(1, 5, 100, 0), undefined);
  assert.equal(limiter.take(1, 1, 1, 0)?.extensions.limit, 'bytes_per_second');
  assert.equal(limiter.take(1, 15, 0, 0), undefined, 'the refused request took no records');
});

test('with N nodes each refills at the rate ÷ N, and an unchanged limit keeps its bucket', () => {
  const limiter = new IngestLimiter();
  limiter.setNodeCount(2);
  limiter.setLimits(1, limits, 0);
  assert.equal(limiter.take(1, 20, 0, 0), undefined);
  limiter.setLimits(1, { ...limits }, 0);
  const refused = limiter.take(1, 10, 0, 1_000);
  assert.equal(refused?.headers['Retry-After'], '1');
  assert.equal(limiter.take(1, 10, 0, 2_000), undefined, '5 records a second on each of two nodes');
  limiter.setLimits(1, undefined, 2_000);
  assert.equal(limiter.take(1, 1_000, 0, 2_000), undefined);
});
