// The PostgreSQL search index loop's chunk sizing: a chunk is sized to the last one's pace, so
// that under load the chunk stop() waits for stays short, and the size recovers once it is fast.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nextChunkSize } from './search-indexer.js';

test('a slow chunk makes the next one smaller, a fast one bigger, within bounds', () => {
  assert.equal(nextChunkSize(5_000, 1_000), 1_250, '5,000 records in 1 s: 1,250 take about 250 ms');
  assert.equal(nextChunkSize(1_250, 50), 5_000, 'fast again: back to the largest chunk');
  assert.equal(nextChunkSize(5_000, 60_000), 250, 'never below the smallest chunk');
  assert.equal(nextChunkSize(5_000, 0), 5_000);
  assert.equal(nextChunkSize(0, 10), 5_000, 'nothing indexed says nothing about the pace');
});
