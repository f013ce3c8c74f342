// Sigma correlation rules: compiling the `correlation` section (and refusing what is wrong, by
// construct), and the engine's windows, groups, tenants, chaining and restart through saved state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import type { NormalisedEvent, FieldValue } from '../../telemetry/normalise/event.js';
import { RuleError } from './errors.js';
import { compileCorrelation, CorrelationEngine, type CompiledCorrelation, type CorrelationHit } from './correlation.js';

const MINUTE = 60_000;
const T0 = Date.UTC(2025, 0, 1);

// Base rules the correlations may refer to, by name or id.
const BASE: Record<string, string> = {
  failed_login: 'id-failed',
  successful_login: 'id-success',
  recon_a: 'id-recon-a',
  recon_b: 'id-recon-b',
  internal_error: 'id-internal-error',
  new_network_connection: 'id-new-conn',
};

function resolver(correlations: Record<string, string> = {}) {
  return (ref: string): { id: string; kind: 'rule' | 'correlation' } | undefined => {
    for (const [name, id] of Object.entries(BASE)) if (ref === name || ref === id) return { id, kind: 'rule' };
    for (const [name, id] of Object.entries(correlations))
      if (ref === name || ref === id) return { id, kind: 'correlation' };
    return undefined;
  };
}

function compile(yaml: string, correlations?: Record<string, string>): CompiledCorrelation {
  return compileCorrelation(parse(yaml) as Record<string, unknown>, 'mr_test.yml', resolver(correlations));
}

/** A correlation document from its `correlation` section (and optional top-level extras). */
function correlationYaml(section: string, extra = '', id = 'corr-1'): string {
  return `title: Test correlation\nid: ${id}\n${extra}correlation:\n${section.replace(/^/gm, '  ')}\n`;
}

let nextSeq = 1;
function event(minutes: number, fields: Record<string, FieldValue>, tenantId = 1): NormalisedEvent {
  return {
    seq: nextSeq++,
    tenantId,
    time: T0 + minutes * MINUTE,
    family: 'syslog',
    logsources: [],
    host: 'web-1',
    fields,
    keywords: '',
  };
}

/** Feeds (ruleId, event) pairs; returns every hit. */
function run(engine: CorrelationEngine, matches: [string, NormalisedEvent][]): CorrelationHit[] {
  return matches.flatMap(([ruleId, item]) => engine.observe(ruleId, item));
}

const bruteForce = compile(
  correlationYaml('type: event_count\nrules: [failed_login]\ngroup-by: [User]\ntimespan: 10m\ncondition: {gte: 3}'),
);

test('compiles metadata: level defaults to medium, tags are lower-cased, references resolve to ids', () => {
  const correlation = compile(
    correlationYaml(
      'type: event_count\nrules: [failed_login, id-success]\ntimespan: 1h\ncondition: {gte: 2}',
      'name: two_logins\ntags: [ATTACK.T1110]\n',
    ),
  );
  assert.equal(correlation.id, 'corr-1');
  assert.equal(correlation.name, 'two_logins');
  assert.equal(correlation.level, 'medium');
  assert.deepEqual(correlation.tags, ['attack.t1110']);
  assert.deepEqual(correlation.rules, ['id-failed', 'id-success']);
  assert.deepEqual(correlation.groupBy, []);
  assert.equal(correlation.timespanMs, 3_600_000);
  assert.equal(correlation.generate, false);
  assert.equal(
    compile(correlationYaml('type: temporal\nrules: [recon_a, recon_b]\ntimespan: 1d')).timespanMs,
    86_400_000,
  );
});

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
  assert.deepEqual(hit?.group, { User: 'alice' });
  assert.equal(hit?.firstTime, T0 + 7 * MINUTE);
  assert.equal(hit?.lastTime, T0 + 9 * MINUTE);
  assert.deepEqual(
    hit?.events.map((item) => item.ruleId),
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
  assert.deepEqual(hits[0]?.group, { SourceIp: '10.0.0.9' });
  assert.equal(hits[0]?.events.length, 3);
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

test('generate: referenced rules are suppressed by default, not when a correlation generates them', () => {
  assert.deepEqual(new CorrelationEngine([bruteForce]).suppressedRuleIds(), new Set(['id-failed']));
  const generating = compile(
    correlationYaml(
      'type: event_count\nrules: [failed_login]\ntimespan: 1h\ncondition: {gte: 5}',
      'generate: true\n',
      'corr-2',
    ),
  );
  assert.equal(generating.generate, true);
  assert.deepEqual(new CorrelationEngine([bruteForce, generating]).suppressedRuleIds(), new Set());
});

test('condition ranges: the correlation fires at the smallest count the condition accepts', () => {
  const range = compile(
    correlationYaml('type: event_count\nrules: [failed_login]\ntimespan: 1h\ncondition: {gt: 2, lte: 4}'),
  );
  assert.equal(range.threshold, 3);
  const skip = compile(
    correlationYaml('type: event_count\nrules: [failed_login]\ntimespan: 1h\ncondition: {gte: 2, neq: 2}'),
  );
  assert.equal(skip.threshold, 3);
  const engine = new CorrelationEngine([range]);
  assert.deepEqual(
    run(
      engine,
      [1, 2, 3].map((minute) => ['id-failed', event(minute, {})]),
    ).map((hit) => hit.value),
    [3],
  );
  for (const condition of ['{gte: 5, lte: 3}', '{eq: 4, neq: 4}', '{lt: 5}', '{lte: 2, neq: 1}']) {
    assert.throws(
      () => compile(correlationYaml(`type: event_count\nrules: [failed_login]\ntimespan: 1h\ncondition: ${condition}`)),
      (error: unknown) => error instanceof RuleError && error.construct === 'correlation.condition',
    );
  }
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

test('malformed correlations are refused, naming the construct', () => {
  const cases: [string, string][] = [
    [correlationYaml('type: event_sum\nrules: [failed_login]\ntimespan: 1h\ncondition: {gte: 2}'), 'correlation.type'],
    [
      correlationYaml('type: event_count\nrules: [failed_login]\ntimespan: 1w\ncondition: {gte: 2}'),
      'correlation.timespan',
    ],
    [
      correlationYaml('type: event_count\nrules: [failed_login]\ntimespan: 5 minutes\ncondition: {gte: 2}'),
      'correlation.timespan',
    ],
    [correlationYaml('type: event_count\nrules: [failed_login]\ncondition: {gte: 2}'), 'correlation.timespan'],
    [
      correlationYaml('type: event_count\nrules: [no_such_rule]\ntimespan: 1h\ncondition: {gte: 2}'),
      'correlation.rules',
    ],
    [correlationYaml('type: event_count\nrules: [failed_login]\ntimespan: 1h'), 'correlation.condition'],
    [
      correlationYaml('type: value_count\nrules: [failed_login]\ntimespan: 1h\ncondition: {gte: 2}'),
      'correlation.condition.field',
    ],
    [
      correlationYaml('type: event_count\nrules: [failed_login]\ntimespan: 1h\ncondition: {gte: 2, above: 3}'),
      'correlation.condition',
    ],
    [
      correlationYaml('type: temporal\nrules: [recon_a, recon_b]\ntimespan: 1h\ncondition: {gte: 3}'),
      'correlation.condition',
    ],
    [
      correlationYaml('type: temporal\nrules: [recon_a]\ntimespan: 1h\naliases: {ip: {recon_b: src}}'),
      'correlation.aliases',
    ],
    [correlationYaml('type: temporal\nrules: [recon_a]\ntimespan: 1h\nordered: true'), 'correlation.ordered'],
    [correlationYaml('type: temporal\nrules: [recon_a]\ntimespan: 1h', 'generate: maybe\n'), 'generate'],
    ['title: No section\nid: x\ncorrelation: event_count\n', 'correlation'],
  ];
  for (const [yaml, construct] of cases) {
    assert.throws(
      () => compile(yaml),
      (error: unknown) =>
        error instanceof RuleError && error.construct === construct && error.message.includes('mr_test.yml'),
      `expected ${construct} for:\n${yaml}`,
    );
  }
});
