import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeBatches, encodeBatches, streamPartitionSubjects, tenantStreamPartition } from './jetstream-codec.js';

test('a tenant always maps to the same stream partition, and tenants spread over the stream partitions', () => {
  const seen = new Set<number>();
  for (let tenant = 1; tenant <= 200; tenant += 1) {
    const partition = tenantStreamPartition(tenant, 16);
    assert.equal(tenantStreamPartition(tenant, 16), partition);
    assert.ok(partition >= 0 && partition < 16);
    seen.add(partition);
  }
  assert.equal(seen.size, 16);
  // Stable across releases: a changed hash would move tenants between stream partitions mid-stream.
  assert.deepEqual(
    [1, 2, 3, 1000].map((tenant) => tenantStreamPartition(tenant, 16)),
    [
      tenantStreamPartition(1, 16),
      tenantStreamPartition(2, 16),
      tenantStreamPartition(3, 16),
      tenantStreamPartition(1000, 16),
    ],
  );
  assert.deepEqual(streamPartitionSubjects('REC', 3), ['REC.p.0', 'REC.p.1', 'REC.p.2']);
});

test('batches survive the message format, missing event times included', () => {
  const batches = [
    {
      tenantId: 7,
      receivedAt: 1_700_000_000_000,
      records: ['{"a":1}', '{"b":"é"}'],
      eventTimes: [Number.NaN, 5],
      metas: [null, '{"stream":"stdout"}'],
    },
    { tenantId: 8, receivedAt: 1_700_000_000_001, records: ['{}'], eventTimes: [1], metas: [null] },
  ];
  const decoded = decodeBatches(encodeBatches(batches));
  assert.equal(decoded.length, 2);
  assert.deepEqual(decoded[0]?.records, batches[0]?.records);
  assert.ok(Number.isNaN(decoded[0]?.eventTimes[0]));
  assert.equal(decoded[0]?.eventTimes[1], 5);
  assert.deepEqual(decoded[1], batches[1]);
  assert.throws(() => decodeBatches(Buffer.from('{"v":99,"b":[]}')), /unknown format \(version 99\)/);
});
