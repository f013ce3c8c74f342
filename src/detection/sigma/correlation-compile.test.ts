// Sigma correlation rules: compiling the `correlation` section — metadata, references, condition
// thresholds, suppression of the rules it counts — and refusing what is wrong, by construct.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RuleError } from './errors.js';
import { CorrelationEngine } from './correlation.js';
import { bruteForce, compile, correlationYaml, event, run } from './test-correlations.js';

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
