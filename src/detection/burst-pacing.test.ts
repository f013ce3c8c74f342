import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ACTIVE_GAP_MS, BURST_LAG, BURST_SHARE, MAX_DEFERRED_LAG, restAfterChunk } from './burst-pacing.js';

test('during a burst detection rests so that its chunks take their share of its time', () => {
  const rest = restAfterChunk({ tookMs: 40, sinceWriteMs: 5, lag: BURST_LAG });
  assert.equal(40 / (40 + rest), BURST_SHARE);
});

test('without writes, keeping up (a few seconds behind) or too far behind, detection runs flat out', () => {
  assert.equal(restAfterChunk({ tookMs: 40, sinceWriteMs: ACTIVE_GAP_MS, lag: BURST_LAG * 2 }), 0);
  assert.equal(restAfterChunk({ tookMs: 40, sinceWriteMs: 5, lag: BURST_LAG - 1 }), 0);
  assert.equal(restAfterChunk({ tookMs: 40, sinceWriteMs: 5, lag: MAX_DEFERRED_LAG }), 0);
  assert.equal(restAfterChunk({ tookMs: 40, sinceWriteMs: 5, lag: MAX_DEFERRED_LAG - 1 }) > 0, true);
});
