// The RuleSet: logsource routing, and a literal pre-filter that prunes which rules are evaluated
// without ever changing the answer (rule-set.property.test.ts checks that against matchNaively
// over random rules and events).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NormalisedEvent, FieldValue, LogSource } from '../../telemetry/normalise/event.js';
import { compileRuleText } from './loader.js';
import { appliesTo, matchNaively, RuleSet } from './rule-set.js';
import { compileOne, makeEvent, ruleYaml } from './test-events.js';
import type { CompiledRule } from './types.js';

const ids = (rules: readonly CompiledRule[]) => rules.map((rule) => rule.id).sort();

function ruleWith(
  id: string,
  logsource: string,
  detection = "selection:\n  Image|contains: 'evil'\ncondition: selection",
): CompiledRule {
  const result = compileRuleText(ruleYaml(detection, { id, logsource }), `${id}.yml`);
  assert.deepEqual(result.rejected, []);
  const [rule] = result.rules;
  assert.ok(rule);
  return rule;
}

const WIN_PROC = ruleWith('win-proc', '  category: process_creation\n  product: windows');
const WIN_ANY = ruleWith('win-any', '  product: Windows');
const LINUX = ruleWith('linux', '  product: linux');
const SSHD = ruleWith('sshd', '  product: linux\n  service: sshd');
const EVERYWHERE = ruleWith('everywhere', '  {}');
const ALL = [WIN_PROC, WIN_ANY, LINUX, SSHD, EVERYWHERE];

function evil(logsources: LogSource[]): NormalisedEvent {
  return makeEvent({ logsources, fields: { Image: 'C:\\evil.exe' } });
}

test('routing by logsource: a rule applies when one event logsource has every key it states', () => {
  const set = new RuleSet(ALL);
  assert.equal(set.size, 5);
  const cases: [LogSource[], string[]][] = [
    [[{ category: 'process_creation', product: 'windows' }], ['everywhere', 'win-any', 'win-proc']],
    [[{ category: 'PROCESS_CREATION', product: 'Windows' }], ['everywhere', 'win-any', 'win-proc']],
    [[{ category: 'process_creation', product: 'linux' }], ['everywhere', 'linux']],
    [[{ product: 'linux', service: 'sshd' }], ['everywhere', 'linux', 'sshd']],
    [
      [
        { product: 'linux', service: 'auth' },
        { product: 'linux', service: 'sshd' },
      ],
      ['everywhere', 'linux', 'sshd'],
    ],
    [[{ category: 'webserver' }], ['everywhere']],
    [[{ service: 'sshd' }], ['everywhere']],
    [[], []],
  ];
  for (const [logsources, expected] of cases) {
    const event = evil(logsources);
    assert.deepEqual(ids(set.match(event)), expected, JSON.stringify(logsources));
    assert.deepEqual(ids(matchNaively(ALL, event)), expected, JSON.stringify(logsources));
    assert.deepEqual(
      ALL.filter((rule) => appliesTo(rule, event))
        .map((rule) => rule.id)
        .sort(),
      expected,
    );
  }
  // Routed, but the condition still decides.
  assert.deepEqual(set.match(makeEvent({ logsources: [{ product: 'linux' }], fields: { Image: '/bin/ls' } })), []);
});

test('routing is the same for frozen (cached) logsource arrays', () => {
  const set = new RuleSet(ALL);
  const shared = Object.freeze([Object.freeze({ product: 'linux', service: 'sshd' })]) as LogSource[];
  for (let round = 0; round < 3; round++)
    assert.deepEqual(ids(set.match(evil(shared))), ['everywhere', 'linux', 'sshd']);
  const windows = Object.freeze([Object.freeze({ category: 'process_creation', product: 'windows' })]) as LogSource[];
  assert.deepEqual(ids(set.match(evil(windows))), ['everywhere', 'win-any', 'win-proc']);
});

test('a logsource key stated as empty text is refused, not routed as if absent', () => {
  const compiled = compileRuleText(
    `title: Blank\nid: blank-service\nlogsource:\n  product: linux\n  service: ''\ndetection:\n  selection:\n    message: evil\n  condition: selection\n`,
    'blank.yml',
  );
  assert.equal(compiled.rules.length, 0);
  assert.equal(compiled.rejected[0]?.construct, 'logsource.service');
  assert.match(compiled.rejected[0].message, /blank\.yml/);
});

test('requirement: a literal rule needs a literal; not, lt, exists and null need none', () => {
  assert.deepEqual(compileOne("selection:\n  Image|endswith: '\\CMD.exe'\ncondition: selection").requirement, [
    { field: 'Image', literal: '\\cmd.exe', at: 'end' },
  ]);
  // Where the longest literal run is: the whole value, its start, its end, or inside it.
  assert.deepEqual(
    compileOne("selection:\n  Image: ['a*bcd', 'xy?z', 'Q', 'st*u']\ncondition: selection").requirement,
    [
      { field: 'Image', literal: 'bcd', at: 'end' },
      { field: 'Image', literal: 'xy', at: 'start' },
      { field: 'Image', literal: 'q', at: 'whole' },
      { field: 'Image', literal: 'st', at: 'start' },
    ],
  );
  assert.deepEqual(compileOne("selection:\n  Image: ['*ab*cde*f', 'g?hij?k']\ncondition: selection").requirement, [
    { field: 'Image', literal: 'cde', at: 'anywhere' },
    { field: 'Image', literal: 'hij', at: 'anywhere' },
  ]);
  assert.deepEqual(compileOne("selection:\n  Image|startswith: 'C:\\Win'\ncondition: selection").requirement, [
    { field: 'Image', literal: 'c:\\win', at: 'start' },
  ]);
  // AND: the best of the items; OR: all of them.
  assert.deepEqual(compileOne("selection:\n  A: 'ab'\n  B: 'abcdef'\ncondition: selection").requirement, [
    { field: 'B', literal: 'abcdef', at: 'whole' },
  ]);
  assert.deepEqual(compileOne("a:\n  A: 'one'\nb:\n  B: 'two'\ncondition: a or b").requirement, [
    { field: 'A', literal: 'one', at: 'whole' },
    { field: 'B', literal: 'two', at: 'whole' },
  ]);
  assert.deepEqual(compileOne("a:\n  A: 'one'\nb:\n  B: 'two'\ncondition: a and not b").requirement, [
    { field: 'A', literal: 'one', at: 'whole' },
  ]);
  // contains|all: the one value whose literal is best.
  assert.deepEqual(compileOne("selection:\n  A|contains|all: ['ab', 'abcd']\ncondition: selection").requirement, [
    { field: 'A', literal: 'abcd', at: 'anywhere' },
  ]);
  // re: the longest run of plain characters every match contains, per alternative.
  assert.deepEqual(compileOne("selection:\n  A|re: '(?i)IEX\\s*\\(|iwr '\ncondition: selection").requirement, [
    { field: 'A', literal: 'iex', at: 'anywhere' },
    { field: 'A', literal: 'iwr ', at: 'anywhere' },
  ]);
  for (const detection of [
    "selection:\n  A: 'one'\ncondition: not selection",
    'selection:\n  A|lt: 5\ncondition: selection',
    "selection:\n  A|re: '[a-z]+ ?'\ncondition: selection",
    'selection:\n  A|exists: true\ncondition: selection',
    "selection:\n  A: [null, 'one']\ncondition: selection",
    "selection:\n  A: '*'\ncondition: selection",
    "selection:\n  A|neq: 'one'\ncondition: selection",
    "a:\n  A: 'one'\nb:\n  B|lt: 5\ncondition: a or b",
  ]) {
    assert.equal(compileOne(detection).requirement, null, detection);
  }
});

test('the pre-filter prunes: rules whose literal is absent are not evaluated', () => {
  const evaluated: string[] = [];
  const counted = (rule: CompiledRule): CompiledRule => ({
    ...rule,
    test: (view) => {
      evaluated.push(rule.id);
      return rule.test(view);
    },
  });
  const literal = counted(
    ruleWith('literal', '  product: windows', "selection:\n  Image|contains: 'mimikatz'\ncondition: selection"),
  );
  const notOnly = counted(
    ruleWith('not-only', '  product: windows', "filter:\n  Image|contains: 'benign'\ncondition: not filter"),
  );
  const short = counted(
    ruleWith('short', '  product: windows', "selection:\n  Image|endswith: '.z'\ncondition: selection"),
  );
  const longer = counted(
    ruleWith(
      'longer',
      '  product: windows',
      "selection:\n  Image|contains|all: ['mimi', 'katz.exe -']\ncondition: selection",
    ),
  );
  const set = new RuleSet([literal, notOnly, short, longer]);
  const on = (image: string) => makeEvent({ logsources: [{ product: 'windows' }], fields: { Image: image } });

  evaluated.length = 0;
  assert.deepEqual(ids(set.match(on('C:\\notepad.exe'))), ['not-only']);
  assert.deepEqual(evaluated, ['not-only']);

  evaluated.length = 0;
  assert.deepEqual(ids(set.match(on('C:\\MimiKatz.exe'))), ['literal', 'not-only']);
  assert.deepEqual(evaluated.sort(), ['literal', 'not-only']);

  evaluated.length = 0;
  assert.deepEqual(ids(set.match(on('archive.Z'))), ['not-only', 'short']);
  assert.deepEqual(evaluated.sort(), ['not-only', 'short']);

  // An endswith literal elsewhere in the text: not at the end, so not evaluated.
  evaluated.length = 0;
  assert.deepEqual(ids(set.match(on('a.z.b'))), ['not-only']);
  assert.deepEqual(evaluated, ['not-only']);

  // A literal that occurs but does not satisfy the pattern: evaluated, and not matched.
  evaluated.length = 0;
  assert.deepEqual(ids(set.match(on('katz.exe -x'))), ['not-only']);
  assert.deepEqual(evaluated.sort(), ['longer', 'not-only']);
});

test('the pre-filter needs every ANDed requirement: a rule is evaluated only when each occurs', () => {
  const evaluated: string[] = [];
  const rule = ruleWith(
    'both',
    '  product: linux',
    "selection:\n  type: 'EXECVE'\n  a0|contains: 'tcpdump'\nfilter:\n  a1: '-D'\ncondition: selection and not filter",
  );
  assert.deepEqual(rule.clauses, [
    [{ field: 'type', literal: 'execve', at: 'whole' }],
    [{ field: 'a0', literal: 'tcpdump', at: 'anywhere' }],
  ]);
  const set = new RuleSet([{ ...rule, test: (view) => (evaluated.push(rule.id), rule.test(view)) }]);
  const on = (fields: Record<string, FieldValue>) => makeEvent({ logsources: [{ product: 'linux' }], fields });
  assert.deepEqual(ids(set.match(on({ type: 'EXECVE', a0: 'ls' }))), []);
  assert.deepEqual(ids(set.match(on({ type: 'SYSCALL', a0: 'tcpdump' }))), []);
  assert.deepEqual(evaluated, [], 'one requirement alone does not make the rule a candidate');
  assert.deepEqual(ids(set.match(on({ type: 'EXECVE', a0: '/usr/sbin/tcpdump', a1: '-i' }))), ['both']);
  assert.deepEqual(ids(set.match(on({ type: 'EXECVE', a0: 'tcpdump', a1: '-D' }))), []);
  assert.deepEqual(evaluated, ['both', 'both']);
});

test('the pre-filter finds literals in any script: Latin, Cyrillic, CJK and mixed trigrams', () => {
  const literals = ['mimikatz', 'вредонос', '木马程序', 'zа木'];
  const rules = literals.map((literal, index) =>
    ruleWith(
      `script-${index}`,
      '  product: windows',
      `selection:\n  CommandLine|contains: '${literal}'\ncondition: selection`,
    ),
  );
  const set = new RuleSet(rules);
  const on = (commandLine: string) =>
    makeEvent({ logsources: [{ product: 'windows' }], fields: { CommandLine: commandLine } });
  assert.deepEqual(ids(set.match(on('run MIMIKATZ now'))), ['script-0']);
  assert.deepEqual(ids(set.match(on('файл ВРЕДОНОС.exe'))), ['script-1']);
  assert.deepEqual(ids(set.match(on('下载木马程序'))), ['script-2']);
  assert.deepEqual(ids(set.match(on('xzа木y'))), ['script-3']);
  assert.deepEqual(ids(set.match(on('mimikat вредно 木马'))), []);
});

test('routes built for logsource values taken from records are bounded', () => {
  const rule = compileOne("selection:\n  message|contains: 'evil'\ncondition: selection");
  const set = new RuleSet([rule]);
  for (let index = 0; index < 3_000; index++)
    set.match(
      makeEvent({ logsources: [{ category: 'application', product: `app-${index}` }], fields: { message: 'evil' } }),
    );
  assert.ok((set as unknown as { routes: Map<string, unknown> }).routes.size <= 1_024);
});

test('the pre-filter needs a literal of each ANDed item of every alternative of an OR', () => {
  const evaluated: string[] = [];
  const rule = ruleWith(
    'either',
    '  product: windows',
    [
      'selection_dll:',
      "  Image|endswith: '\\rundll32.exe'",
      "  CommandLine|endswith: '.dat,#1'",
      'selection_name:',
      "  CommandLine|contains: 'perfc'",
      'condition: 1 of selection_*',
    ].join('\n'),
  );
  // (image and dat) or perfc: (image or perfc) and (dat or perfc).
  assert.deepEqual(rule.clauses, [
    [
      { field: 'Image', literal: '\\rundll32.exe', at: 'end' },
      { field: 'CommandLine', literal: 'perfc', at: 'anywhere' },
    ],
    [
      { field: 'CommandLine', literal: '.dat,#1', at: 'end' },
      { field: 'CommandLine', literal: 'perfc', at: 'anywhere' },
    ],
  ]);
  const set = new RuleSet([{ ...rule, test: (view) => (evaluated.push(rule.id), rule.test(view)) }]);
  const on = (fields: Record<string, FieldValue>) => makeEvent({ logsources: [{ product: 'windows' }], fields });
  const dll = 'C:\\Windows\\System32\\rundll32.exe';
  assert.deepEqual(ids(set.match(on({ Image: dll, CommandLine: 'rundll32.exe shell32.dll,Control_RunDLL' }))), []);
  assert.deepEqual(evaluated, [], 'the first selection half met: not a candidate');
  assert.deepEqual(ids(set.match(on({ Image: dll, CommandLine: 'rundll32.exe c:\\x.dat,#1' }))), ['either']);
  assert.deepEqual(ids(set.match(on({ Image: 'C:\\x.exe', CommandLine: 'x perfc y' }))), ['either']);
  assert.deepEqual(ids(set.match(on({ Image: 'C:\\x.exe', CommandLine: 'x.dat,#1' }))), []);
  assert.deepEqual(evaluated, ['either', 'either'], 'the second selection half met: not a candidate either');
});
