// The literal pre-filter against the obvious reference (text.includes, startsWith, endsWith or
// equality for every literal, as it is anchored): the same rules marked for every text, whatever
// the literals' lengths, overlaps, places and characters.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Candidates } from './candidates.js';
import type { Anchor } from './item.js';
import { LiteralIndex } from './literal-index.js';
import { pick, seededRandom } from '../../core/random.js';

const LITERALS = [
  'c',
  '\\',
  '-e',
  '/c',
  ' -',
  'ab',
  'cmd',
  '.exe',
  '\\cmd.exe',
  'powershell',
  ' -enc ',
  'iex',
  'net user',
  'net use',
  'rundll32.exe',
  ',dllregisterserver',
  'aaa',
  'aaaa',
  'appdata\\local\\temp\\',
  'ве', // Cyrillic
  'pаypal', // a Cyrillic 'а' among ASCII letters
  '😀',
  'x😀y',
  '',
];
const TEXTS = [
  '',
  'c',
  'ab',
  'aaaaa',
  'c:\\windows\\system32\\cmd.exe',
  'c:\\windows\\system32\\cmd.exe /c net user bob p4ss /add',
  'powershell.exe -nop -w hidden -enc sqbfafga',
  '"c:\\windows\\system32\\rundll32.exe" c:\\users\\bob\\appdata\\local\\temp\\x.dll,dllregisterserver',
  'cmd.ex',
  '.exe',
  'net us',
  'привет всем',
  'login to pаypal now',
  'mixed 😀 emoji x😀y and ascii',
  'x😀',
  '\\\\server\\share\\cmd.exe -e',
];

function reference(text: string): number[] {
  return LITERALS.flatMap((literal, rule) => (text.includes(literal) ? [rule] : [])).sort((a, b) => a - b);
}

test('literal index: marks exactly the rules whose literal occurs in the text', () => {
  const index = new LiteralIndex();
  LITERALS.forEach((literal, rule) => index.add(literal, rule));
  const candidates = new Candidates(LITERALS.length);
  for (const text of TEXTS) {
    candidates.reset();
    index.scan(text, candidates);
    assert.deepEqual(
      [...candidates.list].sort((a, b) => a - b),
      reference(text),
      JSON.stringify(text),
    );
  }
});

test('literal index: many literals sharing trigrams, found at every offset', () => {
  const index = new LiteralIndex();
  const literals: string[] = [];
  for (const word of ['temp', 'tmp', 'system32', 'syswow64', 'programdata', 'public']) {
    for (const suffix of ['', '\\', '\\x', '.exe', '\\svchost.exe']) literals.push(`\\${word}${suffix}`);
  }
  literals.forEach((literal, rule) => index.add(literal, rule));
  const candidates = new Candidates(literals.length);
  const texts = literals.flatMap((literal) => [literal, `c:${literal}`, literal.slice(1), literal.slice(0, -1)]);
  for (const text of texts) {
    candidates.reset();
    index.scan(text, candidates);
    const expected = literals.flatMap((literal, rule) => (text.includes(literal) ? [rule] : []));
    assert.deepEqual(
      [...candidates.list].sort((a, b) => a - b),
      expected,
      text,
    );
  }
});

test('literal index: one literal for several rules marks each rule once', () => {
  const index = new LiteralIndex();
  index.add('mimikatz', 0);
  index.add('mimikatz', 2);
  index.add('katz', 1);
  const candidates = new Candidates(3);
  candidates.reset();
  index.scan('mimikatz.exe mimikatz', candidates);
  assert.deepEqual([...candidates.list].sort(), [0, 1, 2]);
  candidates.reset();
  index.scan('mimi', candidates);
  assert.deepEqual(candidates.list, []);
});

test('candidates: a rule needing several clauses is listed once all of them are marked', () => {
  // Three rules: rule 0 needs one clause; rule 1 three (marks 1, 1 + 3, 1 + 2 * 3); rule 2 two (2, 2 + 3).
  const candidates = new Candidates(3, [1, 3, 2]);
  candidates.reset();
  candidates.mark([1, 4]);
  candidates.mark([4, 2, 0]);
  assert.deepEqual(candidates.list, [0]);
  candidates.mark([7]);
  assert.deepEqual(candidates.list, [0, 1]);
  candidates.mark([1, 7]);
  assert.deepEqual(candidates.list, [0, 1], 'listed once');
  candidates.reset();
  candidates.mark([4, 7]);
  assert.deepEqual(candidates.list, [], "the last event's marks are forgotten");
  candidates.mark([5, 2]);
  assert.deepEqual(candidates.list, [2]);
});

const holds = (text: string, literal: string, at: Anchor) =>
  at === 'whole'
    ? text === literal
    : at === 'start'
      ? text.startsWith(literal)
      : at === 'end'
        ? text.endsWith(literal)
        : text.includes(literal);

test('literal index: anchored literals are found at the start, at the end or as the whole text, never elsewhere', () => {
  const index = new LiteralIndex();
  const literals: [string, Anchor][] = [
    ['\\cmd.exe', 'end'],
    ['cmd.exe', 'end'],
    ['\\system32\\cmd.exe', 'end'],
    ['c:\\windows\\', 'start'],
    ['c:\\', 'start'],
    ['4688', 'whole'],
    ['', 'whole'],
    ['', 'end'],
  ];
  literals.forEach(([literal, at], rule) => index.add(literal, rule, at));
  const candidates = new Candidates(literals.length);
  const found = (text: string) => {
    candidates.reset();
    index.scan(text, candidates);
    return [...candidates.list].sort((a, b) => a - b);
  };
  assert.deepEqual(found('c:\\windows\\system32\\cmd.exe'), [0, 1, 2, 3, 4, 7]);
  assert.deepEqual(found('c:\\tools\\xcmd.exe'), [1, 4, 7]);
  assert.deepEqual(found('d:\\c:\\windows\\cmd.exe /c x'), [7]);
  assert.deepEqual(found('4688'), [5, 7]);
  assert.deepEqual(found('46880'), [7]);
  assert.deepEqual(found(''), [6, 7]);
});

test('property: the literal index marks exactly what its anchors say, over random literals and texts', () => {
  const next = seededRandom(17);
  const PIECES = [
    '\\',
    '/',
    'c:',
    'windows',
    'system32',
    'cmd',
    '.exe',
    'a',
    'ab',
    'aab',
    ' ',
    '-e',
    'ß',
    'σ',
    '😀',
    'x',
  ];
  const ANCHORS: Anchor[] = ['anywhere', 'start', 'end', 'whole'];
  const words = (most: number) =>
    Array.from({ length: Math.floor(next() * (most + 1)) }, () => pick(next, PIECES)).join('');
  for (let round = 0; round < 30; round++) {
    const literals: [string, Anchor][] = Array.from({ length: 40 }, () => [words(3), pick(next, ANCHORS)]);
    const index = new LiteralIndex();
    literals.forEach(([literal, at], rule) => index.add(literal, rule, at));
    const candidates = new Candidates(literals.length);
    for (let sample = 0; sample < 150; sample++) {
      // Half the texts hold one of the literals somewhere, so that every anchor is exercised.
      const [literal] = pick(next, literals);
      const text = next() < 0.5 ? words(6) : `${words(2)}${literal}${words(2)}`;
      candidates.reset();
      index.scan(text, candidates);
      const expected = literals.flatMap(([literal, at], rule) => (holds(text, literal, at) ? [rule] : []));
      assert.deepEqual(
        [...candidates.list].sort((a, b) => a - b),
        expected,
        `round ${round}: ${JSON.stringify(text)}`,
      );
    }
  }
});
