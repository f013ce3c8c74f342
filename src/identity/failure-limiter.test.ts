import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clientKey, FailureLimiter } from './failure-limiter.js';

test('an attempt counts from its start, so concurrent guesses cannot exceed the limit', () => {
  const limiter = new FailureLimiter(3, 60_000);
  const now = 1_000_000;
  const admitted = [];
  for (let i = 0; i < 10; i++) {
    if (limiter.retryAfter('203.0.113.7', now) === 0) admitted.push(limiter.begin('203.0.113.7', now));
  }
  assert.equal(admitted.length, 3);
  assert.equal(limiter.retryAfter('203.0.113.7', now), 60);
  assert.equal(limiter.retryAfter('203.0.113.8', now), 0);
});

test('a forgiven attempt does not count; the window ages failures out', () => {
  const limiter = new FailureLimiter(2, 10_000);
  limiter.begin('198.51.100.1', 0)();
  limiter.begin('198.51.100.1', 1)();
  limiter.begin('198.51.100.1', 2);
  assert.equal(limiter.retryAfter('198.51.100.1', 3), 0);
  limiter.begin('198.51.100.1', 3);
  assert.equal(limiter.retryAfter('198.51.100.1', 4), 10);
  assert.equal(limiter.retryAfter('198.51.100.1', 10_003), 0);
});

test('IPv6 clients are counted per /64; IPv4-mapped addresses as IPv4', () => {
  assert.equal(clientKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  assert.equal(clientKey('2001:db8:1:2:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64');
  assert.equal(clientKey('2001:db8::1'), '2001:db8:0:0::/64');
  assert.equal(clientKey('::1'), '0:0:0:0::/64');
  assert.equal(clientKey('::ffff:192.0.2.1'), '192.0.2.1');
  assert.equal(clientKey('192.0.2.1'), '192.0.2.1');
  const limiter = new FailureLimiter(1, 60_000);
  limiter.begin('2001:db8:1:2::10', 0);
  assert.ok(limiter.retryAfter('2001:db8:1:2::99', 1) > 0, 'the same /64 shares the count');
  assert.equal(limiter.retryAfter('2001:db8:1:3::10', 1), 0);
});
