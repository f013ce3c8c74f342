// The published score formula, worked through the examples the documentation gives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { caseScore, severityForLevel } from './case-score.js';
import { checkTransition, transitions } from './case-workflow.js';
import { AppError } from '../core/errors.js';

test('score: level, volume, breadth and device criticality', () => {
  const one = (maxLevel: string, criticalities: ('low' | 'medium' | 'high' | 'critical')[] = []) =>
    caseScore({ maxLevel, observationCount: 1, tactics: 1, criticalities });
  assert.equal(one('critical'), 75);
  assert.equal(one('high'), 55);
  assert.equal(one('medium'), 35);
  assert.equal(one('low'), 15);
  assert.equal(one('informational'), 5);
  assert.equal(one('high', ['critical']), 77);
  assert.equal(one('high', ['low', 'high']), 66, 'the most critical device counts');
  assert.equal(caseScore({ maxLevel: 'high', observationCount: 2, tactics: 1, criticalities: [] }), 58);
  assert.equal(caseScore({ maxLevel: 'high', observationCount: 16, tactics: 1, criticalities: [] }), 65);
  assert.equal(
    caseScore({ maxLevel: 'high', observationCount: 10_000, tactics: 1, criticalities: [] }),
    65,
    'volume is capped at 10',
  );
  assert.equal(caseScore({ maxLevel: 'high', observationCount: 1, tactics: 3, criticalities: [] }), 65);
  assert.equal(
    caseScore({ maxLevel: 'high', observationCount: 1, tactics: 9, criticalities: [] }),
    70,
    'breadth is capped at 15',
  );
  assert.equal(
    caseScore({ maxLevel: 'critical', observationCount: 64, tactics: 6, criticalities: ['critical'] }),
    100,
    'clamped to 100',
  );
  assert.equal(severityForLevel('informational'), 'low');
  assert.equal(severityForLevel('critical'), 'critical');
});

test('workflow: allowed transitions pass, others throw invalid_status_transition naming the allowed ones', () => {
  for (const [from, allowed] of Object.entries(transitions)) {
    for (const to of ['new', 'in_progress', 'on_hold', 'closed'] as const) {
      if (to === from) continue;
      if (allowed.includes(to)) assert.doesNotThrow(() => checkTransition(from as keyof typeof transitions, to));
      else {
        assert.throws(
          () => checkTransition(from as keyof typeof transitions, to),
          (error: unknown) =>
            error instanceof AppError &&
            error.code === 'invalid_status_transition' &&
            JSON.stringify(error.extensions.allowed) === JSON.stringify(allowed),
          `${from} → ${to}`,
        );
      }
    }
  }
});
