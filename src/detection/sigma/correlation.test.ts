// The Sigma correlation engine: event_count, value_count, temporal and temporal_ordered windows,
// groups (with aliases), tenants kept apart, and correlations of correlations.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NormalisedEvent } from '../../telemetry/normalise/event.js';
import { RuleError } from './errors.js';
import { CorrelationEngine } from './correlation.js';
import { bruteForce, compile, correlationYaml, event, MINUTE, run } from './test-correlations.js';
import { T0 } from './test-events.js';

test('event_count fires at the threshold, not before, and the next alert needs a fresh set', () => {
  const engine = new CorrelationEngine([bruteForce]);
  const matches: [string, NormalisedEvent][] = [1, 2, 3, 4, 5, 6].map((minute) => [
    'id-failed',
    event(minute, { User: 'alice' }),
  ]);
  const hits = matches.map(([ruleId, item]) => engine.observe(ruleId, item).length);
  assert.deepEqual(hits, [0, 0, 1, 0, 0, 1]);
  const [hit] = engine.observe('id-failed', event(7, { User: 'alice' })).concat(
    run(engine, [
      ['id-failed', event(8, { User: 'alice' })],
      ['id-failed', event(9, { User: 'alice' })],
    ]),
  );
  assert.equal(hit?.value, 3);
  assert.deepEqual(hit.group, { User: 'alice' });
  assert.equal(hit.firstTime, T0 + 7 * MINUTE);
  assert.equal(hit.lastTime, T0 + 9 * MINUTE);
  assert.deepEqual(
    hit.events.map((item) => item.ruleId),
    ['id-failed', 'id-failed', 'id-failed'],
  );
  // Matches of rules the correlation does not refer to are ignored.
  assert.deepEqual(engine.observe('id-success', event(10, { User: 'alice' })), []);
});

test('matches spread beyond the timespan do not fire; those within it do', () => {
  const engine = new CorrelationEngine([bruteForce]);
  assert.deepEqual(
    run(
      engine,
      [0, 6, 12, 18, 24].map((minute) => ['id-failed', event(minute, { User: 'bob' })]),
    ),
    [],
  );
  // 24, 30 and 34 lie within 10 minutes of 34 (the window is inclusive).
  assert.equal(
    run(engine, [
      ['id-failed', event(30, { User: 'bob' })],
      ['id-failed', event(34, { User: 'bob' })],
    ]).length,
    1,
  );
});

test('group-by keeps groups apart; an event lacking the field groups under null', () => {
  const engine = new CorrelationEngine([bruteForce]);
  const hits = run(engine, [
    ['id-failed', event(1, { User: 'alice' })],
    ['id-failed', event(1, { User: 'bob' })],
    ['id-failed', event(2, { User: 'alice' })],
    ['id-failed', event(2, {})],
    ['id-failed', event(3, { User: 'bob' })],
    ['id-failed', event(3, {})],
    ['id-failed', event(4, { User: null })],
  ]);
  assert.deepEqual(
    hits.map((hit) => hit.group),
    [{ User: null }],
  );
});

test('two tenants never share a window', () => {
  const engine = new CorrelationEngine([bruteForce]);
  const hits = run(engine, [
    ['id-failed', event(1, { User: 'alice' }, 1)],
    ['id-failed', event(2, { User: 'alice' }, 2)],
    ['id-failed', event(3, { User: 'alice' }, 1)],
    ['id-failed', event(4, { User: 'alice' }, 2)],
    ['id-failed', event(5, { User: 'alice' }, 2)],
  ]);
  assert.deepEqual(
    hits.map((hit) => hit.tenantId),
    [2],
  );
  assert.ok(engine.takeChanges().some((change) => change.key.startsWith('1:') && change.value !== null));
});

test('value_count counts distinct values of the field, case as written, and ignores events without it', () => {
  const spray = compile(
    correlationYaml(
      'type: value_count\nrules: [failed_login]\ngroup-by: [SourceIp]\ntimespan: 5m\ncondition: {field: User, gte: 3}',
    ),
  );
  const engine = new CorrelationEngine([spray]);
  const from = (minute: number, user?: string): [string, NormalisedEvent] => [
    'id-failed',
    event(minute, user === undefined ? { SourceIp: '10.0.0.9' } : { SourceIp: '10.0.0.9', User: user }),
  ];
  assert.deepEqual(run(engine, [from(0, 'alice'), from(1, 'alice'), from(1), from(2, 'bob'), from(2, 'bob')]), []);
  const hits = run(engine, [from(3, 'Bob')]);
  assert.equal(hits.length, 1);
  assert.equal(hits[0]?.value, 3);
  assert.deepEqual(hits[0].group, { SourceIp: '10.0.0.9' });
  assert.equal(hits[0].events.length, 3);
});

test('temporal: all rules within the timespan in the same group, in any order', () => {
  const recon = compile(correlationYaml('type: temporal\nrules: [recon_a, recon_b]\ngroup-by: [host]\ntimespan: 5m'));
  assert.deepEqual(recon.condition, { gte: 2 });
  const engine = new CorrelationEngine([recon]);
  assert.deepEqual(
    run(engine, [
      ['id-recon-b', event(0, { host: 'a' })],
      ['id-recon-b', event(1, { host: 'a' })],
      ['id-recon-a', event(1, { host: 'b' })],
      ['id-recon-a', event(7, { host: 'a' })],
    ]),
    [],
  );
  const hits = run(engine, [['id-recon-b', event(8, { host: 'a' })]]);
  assert.equal(hits.length, 1);
  assert.deepEqual(
    hits[0]?.events.map((item) => item.ruleId),
    ['id-recon-a', 'id-recon-b'],
  );
});

test('temporal_ordered fires only for the listed order', () => {
  const ordered = compile(
    correlationYaml('type: temporal_ordered\nrules: [failed_login, successful_login]\ngroup-by: [User]\ntimespan: 10m'),
  );
  const engine = new CorrelationEngine([ordered]);
  assert.deepEqual(
    run(engine, [
      ['id-success', event(0, { User: 'u' })],
      ['id-failed', event(1, { User: 'u' })],
    ]),
    [],
  );
  const hits = run(engine, [['id-success', event(2, { User: 'u' })]]);
  assert.equal(hits.length, 1);
  assert.deepEqual(
    hits[0]?.events.map((item) => item.ruleId),
    ['id-failed', 'id-success'],
  );
  // The sequence must fit the window too.
  assert.deepEqual(
    run(engine, [
      ['id-failed', event(20, { User: 'u' })],
      ['id-success', event(31, { User: 'u' })],
    ]),
    [],
  );
});

test('aliases map each rule’s own field onto the group-by name', () => {
  const aliased = compile(
    correlationYaml(
      'type: temporal\nrules: [internal_error, new_network_connection]\ngroup-by: [internal_ip]\ntimespan: 10s\naliases:\n  internal_ip:\n    internal_error: destination.ip\n    new_network_connection: source.ip',
    ),
  );
  assert.deepEqual(aliased.aliases, {
    internal_ip: { 'id-internal-error': 'destination.ip', 'id-new-conn': 'source.ip' },
  });
  const engine = new CorrelationEngine([aliased]);
  const error = event(0, { 'destination.ip': '10.1.1.1', 'source.ip': '192.0.2.7' });
  const connection = event(0.1, { 'source.ip': '10.1.1.1', 'destination.ip': '198.51.100.3' });
  const hits = run(engine, [
    ['id-internal-error', error],
    ['id-new-conn', connection],
  ]);
  assert.deepEqual(
    hits.map((hit) => hit.group),
    [{ internal_ip: '10.1.1.1' }],
  );
});

test('a correlation of correlations is fed the inner hits; the inner one reports nothing of its own', () => {
  const inner = compile(
    correlationYaml(
      'type: event_count\nrules: [failed_login]\ngroup-by: [User]\ntimespan: 10m\ncondition: {gte: 3}',
      'name: many_failed\n',
    ),
  );
  const outer = compile(
    'title: Brute force then success\nid: corr-outer\nlevel: high\ncorrelation:\n  type: temporal_ordered\n  rules: [many_failed, successful_login]\n  group-by: [User]\n  timespan: 10m\n',
    { many_failed: 'corr-1' },
  );
  const engine = new CorrelationEngine([outer, inner]);
  assert.deepEqual(engine.suppressedRuleIds(), new Set(['id-failed', 'id-success', 'corr-1']));
  const before = run(
    engine,
    [1, 2, 3].map((minute) => ['id-failed', event(minute, { User: 'carol', Computer: 'pc' })]),
  );
  assert.deepEqual(before, []);
  const hits = run(engine, [['id-success', event(4, { User: 'carol' })]]);
  assert.deepEqual(
    hits.map((hit) => [hit.correlation.id, hit.group]),
    [['corr-outer', { User: 'carol' }]],
  );
  assert.deepEqual(
    hits[0]?.events.map((item) => item.ruleId),
    ['corr-1', 'id-success'],
  );
  assert.throws(
    () => new CorrelationEngine([{ ...inner, rules: ['corr-outer'] }, outer]),
    (error: unknown) => error instanceof RuleError && error.construct === 'correlation.rules',
  );
});
