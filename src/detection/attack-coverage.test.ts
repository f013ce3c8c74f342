// ATT&CK coverage from a rule set and the logsources seen: a technique is live when one covering
// rule's logsource was seen, silent when none was, uncovered without a rule; parents combine
// their sub-techniques; tactics follow the catalogue's matrix order. The collector keeps one
// entry per tenant and logsource with the newest and oldest time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadAttackCatalogue } from './attack.js';
import { assessCoverage, buildCoverageIndex } from './attack-coverage.js';
import { LogsourceCollector, MAX_PART_LENGTH } from './logsource-sightings.js';
import { compileRuleText } from './sigma/index.js';

const catalogue = loadAttackCatalogue();

function rule(id: string, title: string, logsource: string, tags: string[]): string {
  return [
    `title: ${title}`,
    `id: ${id}`,
    `logsource:`,
    ...logsource.split(',').map((part) => `  ${part.replace('=', ': ')}`),
    `detection:`,
    `  selection:`,
    `    Image|endswith: '\\evil.exe'`,
    `  condition: selection`,
    `level: high`,
    `tags:`,
    ...tags.map((tag) => `  - ${tag}`),
  ].join('\n');
}

const compilation = compileRuleText(
  [
    rule('11111111-1111-4111-8111-111111111111', 'Windows process rule', 'product=windows,category=process_creation', [
      'attack.execution',
      'attack.t1059.001',
    ]),
    rule('22222222-2222-4222-8222-222222222222', 'Kubernetes audit rule', 'product=kubernetes,service=audit', [
      'attack.t1609',
      'attack.t1059.001',
    ]),
    rule('33333333-3333-4333-8333-333333333333', 'Unknown technique rule', 'category=proxy', ['attack.t9999']),
  ].join('\n---\n'),
);

test('the rules compile', () => {
  assert.deepEqual(compilation.rejected, []);
  assert.equal(compilation.rules.length, 3);
});

test('a technique is live when one covering rule’s logsource was seen, silent when none, uncovered without a rule', () => {
  const index = buildCoverageIndex(compilation, catalogue);
  const coverage = assessCoverage(index, [{ product: 'Windows', category: 'process_creation' }]);
  const byId = new Map(coverage.techniques.map((technique) => [technique.id, technique]));
  const powershell = byId.get('T1059.001');
  assert.equal(powershell?.status, 'live');
  assert.deepEqual(
    powershell.rules.map((item) => [item.title, item.live]),
    [
      ['Kubernetes audit rule', false],
      ['Windows process rule', true],
    ],
  );
  assert.equal(byId.get('T1609')?.status, 'silent');
  assert.equal(byId.get('T1609')?.rules[0]?.live, false);
  assert.equal(byId.get('T1003')?.status, 'uncovered');
  assert.equal(byId.has('T9999'), false, 'a tag the catalogue does not know is no technique of the matrix');
  // The parent has no rule of its own but its sub-technique is live.
  assert.equal(byId.get('T1059')?.status, 'uncovered');
  assert.equal(byId.get('T1059')?.combinedStatus, 'live');
  assert.ok(byId.get('T1059')?.subtechniques.includes('T1059.001'));
  // Nothing seen: both rules silent.
  const quiet = assessCoverage(index, []);
  assert.equal(quiet.techniques.find((technique) => technique.id === 'T1059.001')?.status, 'silent');
});

test('tactics come in the catalogue’s matrix order and count their techniques by combined status', () => {
  const coverage = assessCoverage(buildCoverageIndex(compilation, catalogue), [
    { product: 'kubernetes', service: 'audit' },
  ]);
  assert.deepEqual(coverage.tactics.map((tactic) => tactic.shortname).slice(0, 4), [
    'reconnaissance',
    'resource-development',
    'initial-access',
    'execution',
  ]);
  assert.equal(coverage.tactics.at(-1)?.shortname, 'impact');
  const execution = coverage.tactics.find((tactic) => tactic.shortname === 'execution');
  assert.ok(execution, 'the catalogue has an execution tactic');
  assert.ok(execution.techniques.includes('T1059') && execution.techniques.includes('T1609'));
  assert.ok(!execution.techniques.includes('T1059.001'), 'sub-techniques sit under their parent, not in the column');
  assert.equal(execution.counts.live, 2);
  assert.equal(execution.counts.silent, 0);
  assert.equal(execution.counts.total, execution.techniques.length);
  const parents = coverage.techniques.filter((technique) => technique.parent === null);
  assert.equal(coverage.counts.techniques.total, parents.length);
  assert.equal(coverage.counts.techniques.live, 2);
  assert.equal(coverage.counts.subtechniques.live, 1);
});

test('the collector keeps one entry per tenant and logsource, with its first and last time', () => {
  const collector = new LogsourceCollector();
  const process = { product: 'windows', category: 'process_creation' };
  collector.add(2, [process, { product: 'windows', service: 'sysmon' }], 2_000);
  collector.add(2, [process], 1_000);
  collector.add(2, [process], 3_000);
  collector.add(1, [process], 5_000);
  collector.add(1, [{ category: 'application', product: 'x'.repeat(MAX_PART_LENGTH + 1) }], 5_000);
  assert.deepEqual(collector.take(), [
    { tenantId: 1, product: 'windows', category: 'process_creation', service: '', firstSeen: 5_000, lastSeen: 5_000 },
    { tenantId: 2, product: 'windows', category: '', service: 'sysmon', firstSeen: 2_000, lastSeen: 2_000 },
    { tenantId: 2, product: 'windows', category: 'process_creation', service: '', firstSeen: 1_000, lastSeen: 3_000 },
  ]);
  assert.deepEqual(collector.take(), [], 'take empties the collector');
});
