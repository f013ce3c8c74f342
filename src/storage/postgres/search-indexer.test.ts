// The PostgreSQL search index loop's pacing: a chunk is sized to the last one's pace, so that
// under load the chunk stop() waits for stays short, and the size recovers once it is fast; while
// records keep being committed, a chunk is followed by a rest that leaves the writer its share.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nextChunkSize, restAfterChunk } from './search-indexer.js';

test('a slow chunk makes the next one smaller, a fast one bigger, within bounds', () => {
  assert.equal(nextChunkSize(5_000, 1_000), 1_250, '5,000 records in 1 s: 1,250 take about 250 ms');
  assert.equal(nextChunkSize(1_250, 50), 5_000, 'fast again: back to the largest chunk');
  assert.equal(nextChunkSize(5_000, 60_000), 250, 'never below the smallest chunk');
  assert.equal(nextChunkSize(5_000, 0), 5_000);
  assert.equal(nextChunkSize(0, 10), 5_000, 'nothing indexed says nothing about the pace');
});

test('a chunk during a burst of commits is followed by three times its duration of rest, within a bound', () => {
  assert.equal(restAfterChunk(100, 200), 300, 'a commit 200 ms ago: the writer gets three quarters');
  assert.equal(restAfterChunk(4_000, 0), 5_000, 'never more than 5 s');
  assert.equal(restAfterChunk(100, 1_000), 0, 'no commit for a second: the next chunk at once');
});
