import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clientKey, MemoryFailureLimiter } from './failure-limiter.js';

test('an attempt counts from its start, so concurrent guesses cannot exceed the limit', async () => {
  const limiter = new MemoryFailureLimiter(3, 60_000);
  const now = 1_000_000;
  const attempts = await Promise.all(Array.from({ length: 10 }, () => limiter.attempt('203.0.113.7', now)));
  assert.equal(attempts.filter((attempt) => attempt.refusal === undefined).length, 3);
  assert.equal(await limiter.retryAfter('203.0.113.7', now), 60);
  assert.equal(await limiter.retryAfter('203.0.113.8', now), 0);
});

test('a forgiven attempt does not count; the window ages failures out', async () => {
  const limiter = new MemoryFailureLimiter(2, 10_000);
  await (await limiter.attempt('198.51.100.1', 0)).forgive();
  await (await limiter.attempt('198.51.100.1', 1)).forgive();
  await limiter.attempt('198.51.100.1', 2);
  assert.equal(await limiter.retryAfter('198.51.100.1', 3), 0);
  await limiter.attempt('198.51.100.1', 3);
  assert.equal(await limiter.retryAfter('198.51.100.1', 4), 10);
  assert.equal(await limiter.retryAfter('198.51.100.1', 10_003), 0);
});

test('IPv6 clients are counted per /64; IPv4-mapped addresses as IPv4', async () => {
  assert.equal(clientKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  assert.equal(clientKey('2001:db8:1:2:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64');
  assert.equal(clientKey('2001:db8::1'), '2001:db8:0:0::/64');
  assert.equal(clientKey('::1'), '0:0:0:0::/64');
  assert.equal(clientKey('::ffff:192.0.2.1'), '192.0.2.1');
  assert.equal(clientKey('192.0.2.1'), '192.0.2.1');
  const limiter = new MemoryFailureLimiter(1, 60_000);
  await limiter.attempt('2001:db8:1:2::10', 0);
  assert.ok((await limiter.retryAfter('2001:db8:1:2::99', 1)) > 0, 'the same /64 shares the count');
  assert.equal(await limiter.retryAfter('2001:db8:1:3::10', 1), 0);
});
