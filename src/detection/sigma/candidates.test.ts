// The pre-filter's per-event marks are reset by counting events, not by clearing: after four
// billion events the counters wrap, and neither a mark from the last cycle nor a missed one may
// change which rules an event lists.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Candidates } from './candidates.js';
import { SubstringIndex } from './substring-index.js';

/** Sets a private counter to its last value: four billion events, stood in for. */
function atLastValue(object: object, counter: 'generation' | 'scans'): void {
  (object as Record<string, number>)[counter] = 0xffffffff;
}

test('candidates: across the wrap, a clause marked before it does not count and both clauses marked after it do', () => {
  // Rule 0 needs two clauses (mark 0, then mark 0 + 1 × 2 rules = 2); rule 1 needs one.
  const candidates = new Candidates(2, [2, 1]);
  candidates.reset();
  candidates.mark([0]);
  assert.deepEqual(candidates.list, []);
  atLastValue(candidates, 'generation');
  for (let round = 0; round < 3; round++) {
    candidates.reset();
    candidates.mark([2]);
    assert.deepEqual(candidates.list, [], `round ${round}: the other clause alone`);
    candidates.mark([0, 1]);
    assert.deepEqual(candidates.list, [0, 1], `round ${round}: both clauses, and the one-clause rule`);
  }
});

test('substring index: a one-character literal still marks its rule after the scan counter wraps', () => {
  const index = new SubstringIndex();
  index.add('|', 0);
  index.add('cmd', 1);
  const candidates = new Candidates(2);
  const scan = (text: string) => {
    candidates.reset();
    index.scan(text, candidates);
    return [...candidates.list].sort((a, b) => a - b);
  };
  assert.deepEqual(scan('cmd /c a | b'), [0, 1]);
  atLastValue(index, 'scans');
  for (let round = 0; round < 3; round++) assert.deepEqual(scan('cmd /c a | b'), [0, 1], `round ${round}`);
});
