// Property test of the RuleSet: random rules (every modifier kind, nested conditions, several
// logsources) against random events; routing and the literal pre-filter must never change the
// answer, so the RuleSet must match exactly what matchNaively matches.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NormalisedEvent, FieldValue, LogSource } from '../../telemetry/normalise/event.js';
import { compileRuleText } from './loader.js';
import { matchNaively, RuleSet } from './rule-set.js';
import { makeEvent, ruleYaml } from './test-events.js';
import type { CompiledRule } from './types.js';
import { pick as pickWith, seededRandom } from '../../core/random.js';

const ids = (rules: readonly CompiledRule[]) => rules.map((rule) => rule.id).sort();

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
  // The keywords text is often a field's own value (a process's command line).
  const roll = next();
  const keywords =
    roll < 0.25 && typeof fields.CommandLine === 'string'
      ? fields.CommandLine
      : roll < 0.6
        ? String(randomValue(next) ?? '')
        : '';
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
