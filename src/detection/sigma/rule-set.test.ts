// The RuleSet: logsource routing, and a literal pre-filter that prunes which rules are evaluated
// without ever changing the answer (checked against matchNaively over random rules and events).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NormalisedEvent, FieldValue, LogSource } from '../../telemetry/normalise/event.js';
import { compileRuleText } from './loader.js';
import { appliesTo, matchNaively, RuleSet } from './rule-set.js';
import { compileOne, makeEvent, ruleYaml } from './test-events.js';
import type { CompiledRule } from './types.js';
import { pick as pickWith, seededRandom } from '../../core/random.js';

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
    { field: 'Image', literal: '\\cmd.exe' },
  ]);
  assert.deepEqual(compileOne("selection:\n  Image: ['a*bcd', 'xy?z']\ncondition: selection").requirement, [
    { field: 'Image', literal: 'bcd' },
    { field: 'Image', literal: 'xy' },
  ]);
  // AND: the best of the items; OR: all of them.
  assert.deepEqual(compileOne("selection:\n  A: 'ab'\n  B: 'abcdef'\ncondition: selection").requirement, [
    { field: 'B', literal: 'abcdef' },
  ]);
  assert.deepEqual(compileOne("a:\n  A: 'one'\nb:\n  B: 'two'\ncondition: a or b").requirement, [
    { field: 'A', literal: 'one' },
    { field: 'B', literal: 'two' },
  ]);
  assert.deepEqual(compileOne("a:\n  A: 'one'\nb:\n  B: 'two'\ncondition: a and not b").requirement, [
    { field: 'A', literal: 'one' },
  ]);
  // contains|all: the one value whose literal is best.
  assert.deepEqual(compileOne("selection:\n  A|contains|all: ['ab', 'abcd']\ncondition: selection").requirement, [
    { field: 'A', literal: 'abcd' },
  ]);
  // re: the longest run of plain characters every match contains, per alternative.
  assert.deepEqual(compileOne("selection:\n  A|re: '(?i)IEX\\s*\\(|iwr '\ncondition: selection").requirement, [
    { field: 'A', literal: 'iex' },
    { field: 'A', literal: 'iwr ' },
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
  const set = new RuleSet([literal, notOnly, short]);
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

  // A literal that occurs but does not satisfy the pattern: evaluated, and not matched.
  evaluated.length = 0;
  assert.deepEqual(ids(set.match(on('a.z.b'))), ['not-only']);
  assert.deepEqual(evaluated.sort(), ['not-only', 'short']);
});

test('the pre-filter needs every ANDed requirement: a rule is evaluated only when each occurs', () => {
  const evaluated: string[] = [];
  const rule = ruleWith(
    'both',
    '  product: linux',
    "selection:\n  type: 'EXECVE'\n  a0|contains: 'tcpdump'\nfilter:\n  a1: '-D'\ncondition: selection and not filter",
  );
  assert.deepEqual(rule.clauses, [
    [{ field: 'type', literal: 'execve' }],
    [{ field: 'a0', literal: 'tcpdump' }],
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

// Property test: random rules and events; the RuleSet must answer exactly as matchNaively.

const random = seededRandom;

const FIELDS = ['Image', 'CommandLine', 'User', 'EventID', 'Port'];
const WORDS = [
  'cmd',
  'CMD.exe',
  'powershell',
  '-enc',
  '/c',
  'admin',
  'ärger',
  'ÄRGER',
  'straße',
  'STRASSE',
  'ΟΔΟΣ',
  'οδος',
  'a*b',
  'x?z',
  'ab',
  'c',
  '\\temp\\',
  'σ',
];
const NUMBERS = [0, 1, 7, 10, 22, 443, 4624];
const LOGSOURCES: string[] = [
  '  {}',
  '  product: windows',
  '  category: process_creation\n  product: windows',
  '  product: linux',
  '  product: linux\n  service: sshd',
];
const EVENT_LOGSOURCES: LogSource[][] = [
  [{ category: 'process_creation', product: 'windows' }],
  [{ product: 'windows' }],
  [
    { product: 'linux', service: 'sshd' },
    { product: 'linux', service: 'auth' },
  ],
  [{ category: 'process_creation', product: 'linux' }],
  [{ category: 'webserver' }],
];

function quote(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

function randomItem(next: () => number): string {
  const pick = <T>(list: readonly T[]): T => pickWith(next, list);
  const field = pick(FIELDS);
  const words = (count: number) => Array.from({ length: count }, () => quote(pick(WORDS)));
  const values = () => {
    const list = words(1 + Math.floor(next() * 3));
    const joined = list.join(', ');
    return list.length === 1 ? joined : `[${joined}]`;
  };
  switch (Math.floor(next() * 13)) {
    case 0:
      return `${field}: ${values()}`;
    case 1:
      return `${field}|contains: ${values()}`;
    case 2:
      return `${field}|startswith: ${values()}`;
    case 3:
      return `${field}|endswith: ${values()}`;
    case 4:
      return `${field}|contains|all: [${words(2).join(', ')}]`;
    case 5:
      return `${field}|contains|cased: ${values()}`;
    case 6:
      return `${field}|cased: ${values()}`;
    case 7:
      return `${field}|re: ${quote(pick(['^c', 'md', 'ab?', 'ä', '[0-9]{2}', 'enc$', '(?i)MD', 'MD', 'c|en', 'c(m|x)d', 'e?nc', 'a+b', 'md|[0-9]']))}`;
    case 8:
      return `${field}|${pick(['lt', 'lte', 'gt', 'gte'])}: ${pick(NUMBERS)}`;
    case 9:
      return `${field}|exists: ${next() < 0.5}`;
    case 10:
      return `${field}: ${next() < 0.5 ? 'null' : `[null, ${quote(pick(WORDS))}]`}`;
    case 11:
      return `${field}: ${pick(NUMBERS)}`;
    default:
      return `${field}|windash|contains: ${quote(pick(['-enc', '/c', ' -w hidden']))}`;
  }
}

function randomRule(index: number, next: () => number): string {
  const count = 1 + Math.floor(next() * 3);
  const searches: string[] = [];
  for (let search = 0; search < count; search++) {
    if (next() < 0.1) {
      searches.push(`sel${search}:\n  - ${quote(pickWith(next, ['cmd', 'admin', 'ärger', 'x?z']))}`);
      continue;
    }
    const items = 1 + Math.floor(next() * 2);
    const lines = new Set(Array.from({ length: items }, () => randomItem(next)));
    // Map keys must be unique: one item per field.
    const byField = new Map(
      [...lines].map((line) => {
        const [field = line] = line.split(/[|:]/);
        return [field, line];
      }),
    );
    searches.push(`sel${search}:\n${[...byField.values()].map((line) => `  ${line}`).join('\n')}`);
  }
  const names = searches.map((_, search) => `sel${search}`);
  const term = () => {
    const name = pickWith(next, names);
    return next() < 0.3 ? `not ${name}` : name;
  };
  const conditions = [
    () => term(),
    () => `${term()} and ${term()}`,
    () => `${term()} or ${term()}`,
    () => `(${term()} or ${term()}) and ${term()}`,
    () => '1 of sel*',
    () => 'all of sel*',
    () => `1 of sel* and not ${names[0]}`,
    () => `not (${term()} and ${term()})`,
  ];
  const condition = pickWith(next, conditions)();
  const logsource = pickWith(next, LOGSOURCES);
  return ruleYaml(`${searches.join('\n')}\ncondition: ${condition}`, { id: `random-${index}`, logsource });
}

function randomValue(next: () => number): FieldValue {
  const pick = <T>(list: readonly T[]): T => pickWith(next, list);
  const text = () => {
    const parts = Array.from({ length: Math.floor(next() * 4) }, () =>
      pick([...WORDS, 'x', 'yz', ' ', '\u2013enc', '—c', 'ASS']),
    );
    return parts.join(pick(['', ' ', '\\']));
  };
  const roll = next();
  if (roll < 0.15) return pick(NUMBERS);
  if (roll < 0.2) return String(pick(NUMBERS));
  if (roll < 0.25) return null;
  if (roll < 0.3) return [text(), text()];
  if (roll < 0.33) return [];
  return text();
}

function randomEvent(next: () => number): NormalisedEvent {
  const fields: Record<string, FieldValue> = {};
  for (const field of FIELDS) if (next() < 0.7) fields[field] = randomValue(next);
  const keywords = next() < 0.6 ? String(randomValue(next) ?? '') : '';
  return makeEvent({
    logsources: pickWith(next, EVENT_LOGSOURCES),
    fields,
    keywords,
  });
}

test('property: the RuleSet matches exactly what matchNaively matches, over random rules and events', () => {
  for (const seed of [1, 2, 3]) {
    const next = random(seed);
    const text = Array.from({ length: 300 }, (_, index) => randomRule(index, next)).join('---\n');
    const { rules, rejected } = compileRuleText(text, `random-${seed}.yml`);
    assert.deepEqual(rejected, [], `seed ${seed}`);
    assert.equal(rules.length, 300);
    const set = new RuleSet(rules);
    let matches = 0;
    for (let event = 0; event < 400; event++) {
      const sample = randomEvent(next);
      const expected = ids(matchNaively(rules, sample));
      matches += expected.length;
      assert.deepEqual(ids(set.match(sample)), expected, `seed ${seed}, event ${JSON.stringify(sample)}`);
    }
    // The generator must exercise both outcomes, and the pre-filter must have work to do.
    assert.ok(matches > 100, `seed ${seed}: only ${matches} matches`);
    const pruned = rules.filter((rule) => rule.requirement !== null).length;
    assert.ok(pruned > 30 && pruned < 300, `seed ${seed}: ${pruned} rules with a requirement`);
  }
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

test('the candidate marks survive their counter wrapping: no rule is skipped after 2^32 events', () => {
  const rule = compileOne("selection:\n  message|contains: 'evil'\ncondition: selection");
  const set = new RuleSet([rule]);
  const event = makeEvent({ fields: { message: 'an evil thing' } });
  assert.equal(set.match(event).length, 1);
  // The rule was marked in generation 1. Stand in for four billion events: the counter is at
  // its last value, so the next event wraps around to the generation that marked the rule.
  (set as unknown as { generation: number }).generation = 0xffffffff;
  for (let round = 0; round < 3; round++) assert.equal(set.match(event).length, 1, `round ${round}`);
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
