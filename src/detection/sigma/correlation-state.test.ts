// The Sigma correlation engine's saved state: changes taken and restored into a new engine,
// windows expired by each tenant's watermark (saved too, and moved record by record, so the
// outcome does not depend on where the log was cut), and state of correlations that no longer exist.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NormalisedEvent } from '../../telemetry/normalise/event.js';
import { CorrelationEngine, type CorrelationHit } from './correlation.js';
import { bruteForce, compile, correlationYaml, event, MINUTE, run } from './test-correlations.js';
import { T0 } from './test-events.js';

/** A record with its own time `minutes` after T0, received a second later. */
function timed(minutes: number, tenantId = 1) {
  const eventTime = T0 + minutes * MINUTE;
  return { tenantId, eventTime, receivedAt: eventTime + 1_000 };
}

/** Feeds matches as the processor does: each record moves its tenant's watermark first. */
function feed(engine: CorrelationEngine, matches: [string, NormalisedEvent][]): CorrelationHit[] {
  return matches.flatMap(([ruleId, item]) => {
    engine.advance({ tenantId: item.tenantId, eventTime: item.time, receivedAt: item.time + 1_000 });
    return engine.observe(ruleId, item);
  });
}

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
  engine.advance(timed(12));
  engine.expire();
  const changes = engine.takeChanges().filter((change) => change.key !== '1:watermark');
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
  engine.advance(timed(1_000_000, 2));
  engine.expire();
  assert.deepEqual(engine.takeChanges(), [{ key: '2:watermark', value: String(timed(1_000_000, 2).eventTime) }]);
  engine.expire();
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
  changed.expire();
  assert.deepEqual(changed.takeChanges(), [{ key: saved[0]?.key, value: null }]);
  assert.throws(() => changed.restore([{ key: 'k', value: '{"broken":true}' }]), /malformed/);
});

test('a late match is fed against the watermark as it stands, so chunking the records changes nothing', () => {
  // alice fails at 0 and 1; bob's record at 12 moves the watermark; alice's late failure at 2 is
  // in a window of its own (12 - 10 = 2), so her earlier two no longer count with it.
  const matches: [string, NormalisedEvent][] = [
    ['id-failed', event(0, { User: 'alice' })],
    ['id-failed', event(1, { User: 'alice' })],
    ['id-failed', event(12, { User: 'bob' })],
    ['id-failed', event(2, { User: 'alice' })],
    ['id-failed', event(3, { User: 'alice' })],
    ['id-failed', event(4, { User: 'alice' })],
  ];
  const whole = feed(new CorrelationEngine([bruteForce]), matches);
  assert.deepEqual(
    whole.map((hit) => hit.events.map((item) => item.time)),
    [[T0 + 2 * MINUTE, T0 + 3 * MINUTE, T0 + 4 * MINUTE]],
  );
  // Cut after every record, state saved and restored into a fresh engine each time.
  let saved = new Map<string, string>();
  const cut: CorrelationHit[] = [];
  for (const match of matches) {
    const engine = new CorrelationEngine([bruteForce]);
    engine.restore([...saved].map(([key, value]) => ({ key, value })));
    cut.push(...feed(engine, [match]));
    engine.expire();
    saved = new Map(saved);
    for (const change of engine.takeChanges())
      if (change.value === null) saved.delete(change.key);
      else saved.set(change.key, change.value);
  }
  assert.deepEqual(
    cut.map((hit) => [hit.dedupeKey, hit.events]),
    whole.map((hit) => [hit.dedupeKey, hit.events]),
  );
});

test('a record without a time of its own (its receive time stands in) moves no window', () => {
  const engine = new CorrelationEngine([bruteForce]);
  feed(engine, [
    ['id-failed', event(0, { User: 'alice' })],
    ['id-failed', event(1, { User: 'alice' })],
  ]);
  // Received weeks later without a time: the stand-in must not expire alice's window.
  const received = T0 + 30 * 24 * 60 * MINUTE;
  engine.advance({ tenantId: 1, eventTime: received, receivedAt: received });
  engine.expire();
  assert.equal(feed(engine, [['id-failed', event(2, { User: 'alice' })]]).length, 1);
});

test('windows fed only by records in receive time expire by the receive clock, so their state does not grow', () => {
  const engine = new CorrelationEngine([bruteForce]);
  // No record of this tenant has a time of its own: each carries its receive time.
  for (const minutes of [0, 1]) {
    const item = event(minutes, { User: 'old' });
    engine.advance({ tenantId: 1, eventTime: item.time, receivedAt: item.time });
    engine.observe('id-failed', item);
  }
  assert.equal(engine.takeChanges().length, 1, 'one window, no watermark');
  const later = T0 + 30 * MINUTE;
  engine.advance({ tenantId: 1, eventTime: later, receivedAt: later });
  engine.expire();
  const changes = engine.takeChanges();
  assert.equal(changes.length, 1);
  assert.equal(changes[0]?.value, null, 'the idle window is deleted');
});

test('a record dated ahead of its receive time moves the watermark only to the allowed skew', () => {
  const engine = new CorrelationEngine([bruteForce]);
  feed(engine, [['id-failed', event(0, { User: 'alice' })]]);
  engine.advance({ tenantId: 1, eventTime: T0 + 1_000 * MINUTE, receivedAt: T0 + MINUTE });
  assert.deepEqual(engine.takeChanges().at(-1), { key: '1:watermark', value: String(T0 + 6 * MINUTE) });
});
