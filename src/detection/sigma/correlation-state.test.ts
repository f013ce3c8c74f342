// The Sigma correlation engine's saved state: changes taken and restored into a new engine,
// windows expired by each tenant's watermark, and state of correlations that no longer exist.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NormalisedEvent } from '../../telemetry/normalise/event.js';
import { CorrelationEngine, type CorrelationHit } from './correlation.js';
import { bruteForce, compile, correlationYaml, event, MINUTE, run } from './test-correlations.js';
import { T0 } from './test-events.js';

test('state saved with takeChanges and restored into a new engine behaves as one engine', () => {
  const correlations = [
    bruteForce,
    compile(
      correlationYaml(
        'type: value_count\nrules: [failed_login]\ntimespan: 30m\ncondition: {field: User, gte: 4}',
        '',
        'corr-users',
      ),
    ),
    compile(
      correlationYaml(
        'type: temporal_ordered\nrules: [failed_login, successful_login]\ngroup-by: [User]\ntimespan: 10m',
        '',
        'corr-seq',
      ),
    ),
  ];
  const users = ['alice', 'bob', 'alice', 'carol', 'alice', 'bob', 'dave', 'alice', 'bob', 'bob'];
  const matches: [string, NormalisedEvent][] = users.map((user, index) => [
    index % 4 === 3 ? 'id-success' : 'id-failed',
    event(index, { User: user }),
  ]);
  const summary = (hits: CorrelationHit[]) =>
    hits.map((hit) => [hit.correlation.id, hit.dedupeKey, hit.value, hit.events, hit.firstTime, hit.lastTime]);

  const single = summary(run(new CorrelationEngine(correlations), matches));
  const first = new CorrelationEngine(correlations);
  const early = run(first, matches.slice(0, 5));
  const saved = first.takeChanges().filter((row): row is { key: string; value: string } => row.value !== null);
  const second = new CorrelationEngine(correlations);
  second.restore(saved);
  assert.deepEqual(second.takeChanges(), []);
  const late = run(second, matches.slice(5));
  assert.ok(single.length >= 3, 'the scenario fires several correlations');
  assert.deepEqual(summary([...early, ...late]), single);
});

test('expire drops windows older than the watermark minus the timespan, and reports their deletion', () => {
  const engine = new CorrelationEngine([bruteForce]);
  run(engine, [
    ['id-failed', event(0, { User: 'old' })],
    ['id-failed', event(8, { User: 'new' })],
  ]);
  engine.takeChanges();
  engine.expire(new Map([[1, T0 + 12 * MINUTE]]));
  const changes = engine.takeChanges();
  assert.equal(changes.length, 1);
  assert.equal(changes[0]?.value, null);
  // The surviving group still counts its match; the expired one starts over.
  assert.equal(
    run(engine, [
      ['id-failed', event(13, { User: 'new' })],
      ['id-failed', event(14, { User: 'new' })],
    ]).length,
    1,
  );
  assert.deepEqual(
    run(engine, [
      ['id-failed', event(13, { User: 'old' })],
      ['id-failed', event(14, { User: 'old' })],
    ]),
    [],
  );
});

test("one tenant's watermark never expires another tenant's windows", () => {
  const engine = new CorrelationEngine([bruteForce]);
  run(engine, [
    ['id-failed', event(0, { User: 'a' }, 1)],
    ['id-failed', event(1, { User: 'a' }, 1)],
  ]);
  engine.takeChanges();
  // Tenant 2 is far ahead (say, a record dated years ahead): tenant 1's window is untouched.
  engine.expire(new Map([[2, T0 + 1_000_000 * MINUTE]]));
  assert.deepEqual(engine.takeChanges(), []);
  assert.equal(
    run(engine, [['id-failed', event(2, { User: 'a' }, 1)]]).length,
    1,
    'tenant 1 still completes its count',
  );
});

test('restored state of a correlation that no longer exists is deleted at the next expire', () => {
  const engine = new CorrelationEngine([bruteForce]);
  run(engine, [['id-failed', event(0, { User: 'x' })]]);
  const saved = engine.takeChanges().map((row) => ({ key: row.key, value: row.value ?? '' }));
  const changed = new CorrelationEngine([{ ...bruteForce, timespanMs: 20 * MINUTE }]);
  changed.restore(saved);
  changed.expire(new Map());
  assert.deepEqual(changed.takeChanges(), [{ key: saved[0]?.key, value: null }]);
  assert.throws(() => changed.restore([{ key: 'k', value: '{"broken":true}' }]), /malformed/);
});
