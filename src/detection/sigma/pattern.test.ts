// Sigma string values: the specification's escaping rules, the `*` and `?` wildcards, and
// case-insensitive matching by default (for all of Unicode) unless `|cased`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fold } from './fold.js';
import { compileAnyPattern, compilePattern, SigmaString } from './pattern.js';
import { compileItem, withFields } from './test-events.js';

/** Whether `Field: <value>` (value in YAML single quotes, so backslashes are literal) matches. */
function equals(value: string, actual: string, modifiers = ''): boolean {
  const rule = compileItem(`Field${modifiers}: '${value.replace(/'/g, "''")}'`);
  return rule.match(withFields({ Field: actual }));
}

test('SigmaString.parse follows the escaping rules of the specification', () => {
  const parts = (value: string) => SigmaString.parse(value).tokens;
  // A plain backslash not followed by a wildcard is itself, written single or double.
  assert.deepEqual(parts(String.raw`C:\Windows\System32`), [{ literal: String.raw`C:\Windows\System32` }]);
  assert.deepEqual(parts(String.raw`C:\\Windows\\System32`), [{ literal: String.raw`C:\Windows\System32` }]);
  // An escaped wildcard is the plain character.
  assert.deepEqual(parts(String.raw`a\*b`), [{ literal: 'a*b' }]);
  assert.deepEqual(parts(String.raw`a\?b`), [{ literal: 'a?b' }]);
  // An escaped backslash before a wildcard: a backslash, then the wildcard.
  assert.deepEqual(parts(String.raw`a\\*`), [{ literal: 'a\\' }, { wildcard: '*' }]);
  // Three backslashes: a plain backslash and a plain star.
  assert.deepEqual(parts(String.raw`a\\\*`), [{ literal: 'a\\*' }]);
  // Three or four backslashes are a double backslash.
  assert.deepEqual(parts(String.raw`a\\\b`), [{ literal: String.raw`a\\b` }]);
  assert.deepEqual(parts(String.raw`a\\\\b`), [{ literal: String.raw`a\\b` }]);
  // A trailing backslash is itself.
  assert.deepEqual(parts('dir\\'), [{ literal: 'dir\\' }]);
  assert.equal(SigmaString.parse('a*b?c').hasWildcards, true);
  assert.equal(SigmaString.parse(String.raw`a\*b\?c`).hasWildcards, false);
});

test('spec escaping: a plain backslash path matches, written with single or double backslashes', () => {
  const path = String.raw`C:\Windows\System32\cmd.exe`;
  assert.equal(equals(String.raw`C:\Windows\System32\cmd.exe`, path), true);
  assert.equal(equals(String.raw`C:\\Windows\\System32\\cmd.exe`, path), true);
  assert.equal(equals('C:\\Windows\\', 'C:\\Windows\\'), true);
  assert.equal(equals('C:\\Windows\\', 'C:\\Windows'), false);
  assert.equal(equals(String.raw`C:\Windows\System32\cmd.exe`, 'C:/Windows/System32/cmd.exe'), false);
});

test('spec escaping: \\* and \\? are the plain characters, not wildcards', () => {
  assert.equal(equals(String.raw`what\*`, 'what*'), true);
  assert.equal(equals(String.raw`what\*`, 'whatever'), false);
  assert.equal(equals(String.raw`what\?`, 'what?'), true);
  assert.equal(equals(String.raw`what\?`, 'whats'), false);
});

test('spec escaping: \\\\* is a backslash followed by a wildcard', () => {
  assert.equal(equals(String.raw`C:\\*`, String.raw`C:\Users\x`), true);
  assert.equal(equals(String.raw`C:\\*`, 'C:\\'), true);
  assert.equal(equals(String.raw`C:\\*`, 'C:/Users'), false);
  assert.equal(equals(String.raw`C:\\*`, String.raw`C:*`), false);
});

test('spec escaping: \\\\\\* is a plain backslash and a plain star', () => {
  assert.equal(equals(String.raw`C:\\\*`, String.raw`C:\*`), true);
  assert.equal(equals(String.raw`C:\\\*`, String.raw`C:\Users`), false);
});

test('spec escaping: three or four backslashes are a plain double backslash', () => {
  assert.equal(equals(String.raw`\\\\server\share`, String.raw`\\server\share`), true);
  assert.equal(equals(String.raw`\\\server\share`, String.raw`\\server\share`), true);
  assert.equal(equals(String.raw`\\\\server\share`, String.raw`\server\share`), false);
});

test('* matches any run, including none; ? exactly one character', () => {
  assert.equal(equals('prog*.exe', 'prog.exe'), true);
  assert.equal(equals('prog*.exe', 'progA1.exe'), true);
  assert.equal(equals('prog*.exe', 'prog.dll'), false);
  assert.equal(equals('prog?.exe', 'progA.exe'), true);
  assert.equal(equals('prog?.exe', 'prog.exe'), false);
  assert.equal(equals('prog?.exe', 'progAB.exe'), false);
  assert.equal(equals('*\\cmd.exe', String.raw`C:\Windows\cmd.exe`), true);
  assert.equal(equals('a*b*c', 'aXXbYYc'), true);
  assert.equal(equals('a*b*c', 'aXXcYYb'), false);
  assert.equal(equals('*', 'anything'), true);
  assert.equal(equals('*', ''), true);
  // The value is the whole field, not a part of it.
  assert.equal(equals('cmd.exe', 'xcmd.exe'), false);
  // A wildcard in the value spans newlines in the field.
  assert.equal(equals('a*b', 'a\nb'), true);
  // Regex metacharacters in the value are plain.
  assert.equal(equals('a.b(c)[d]+', 'a.b(c)[d]+'), true);
  assert.equal(equals('a.b', 'axb'), false);
});

test('? matches one character that is outside the Basic Multilingual Plane', () => {
  assert.equal(equals('a?b', 'a😀b'), true);
});

test('an empty value matches only an empty field', () => {
  assert.equal(equals('', ''), true);
  assert.equal(equals('', 'x'), false);
  assert.equal(compileItem("Field: ''").match(withFields({})), false);
});

test('matching is case-insensitive by default, ASCII and beyond', () => {
  assert.equal(equals('CMD.EXE', 'cmd.exe'), true);
  assert.equal(equals('cmd.exe', 'CMD.EXE'), true);
  assert.equal(equals('ÄRGER', 'ärger'), true);
  assert.equal(equals('ärger', 'ÄRGER'), true);
  assert.equal(equals('ärger', 'arger'), false);
  assert.equal(equals('STRASSE', 'straße'), true);
  assert.equal(equals('straße', 'STRASSE'), true);
  assert.equal(equals('strasse', 'strase'), false);
  // Greek: capital sigma, medial σ and final ς are one letter.
  assert.equal(equals('ΟΔΟΣ', 'οδος'), true);
  assert.equal(equals('οδος', 'ΟΔΟΣ'), true);
  assert.equal(equals('οδοσ', 'οδος'), true);
  assert.equal(equals('ΟΔΟΣ', 'οδοι'), false);
  // Wildcards and case folding together.
  assert.equal(equals('*ÄRGER*', 'viel ärger hier'), true);
  assert.equal(equals('Ä?GER', 'ärger'), true);
});

test('|cased matches case-sensitively', () => {
  assert.equal(equals('CMD.exe', 'CMD.exe', '|cased'), true);
  assert.equal(equals('CMD.exe', 'cmd.exe', '|cased'), false);
  assert.equal(equals('Ärger', 'ärger', '|cased'), false);
  assert.equal(equals('Cmd*', 'Cmd.exe', '|cased'), true);
  assert.equal(equals('Cmd*', 'cmd.exe', '|cased'), false);
  assert.equal(equals('exe', 'a.EXE', '|endswith|cased'), false);
  assert.equal(equals('exe', 'a.exe', '|endswith|cased'), true);
});

test('fold: ASCII lower case, ß/SS, final sigma and long s fold alike', () => {
  assert.equal(fold('ABC'), 'abc');
  assert.equal(fold('STRASSE'), fold('straße'));
  assert.equal(fold('ΟΔΟΣ'), fold('οδος'));
  assert.equal(fold('ſ'), 's');
  assert.notEqual(fold('a'), fold('b'));
});

test('compilePattern picks equality, prefix, suffix, substring or a regex, with the same answers', () => {
  const cases: [string, string, boolean][] = [
    ['abc', 'abc', true],
    ['abc', 'abcd', false],
    ['abc*', 'abcd', true],
    ['abc*', 'xabc', false],
    ['*abc', 'xabc', true],
    ['*abc', 'abcx', false],
    ['*abc*', 'xabcx', true],
    ['*abc*', 'xabx', false],
    ['a*c', 'abbc', true],
    ['a*c', 'abbd', false],
    ['**', '', true],
    ['?', '', false],
    ['?', 'x', true],
  ];
  for (const [value, text, expected] of cases) {
    assert.equal(compilePattern(SigmaString.parse(value), false)(text), expected, `${value} against ${text}`);
  }
  // Case-insensitive patterns expect folded text; cased ones compare as written.
  assert.equal(compilePattern(SigmaString.parse('ABC'), false)('abc'), true);
  assert.equal(compilePattern(SigmaString.parse('ABC'), true)('abc'), false);
});

test('compileAnyPattern answers as any of the patterns compiled one by one', () => {
  const values = ['abc', 'abc*', '*\\CMD.EXE', '*net user*', 'a*c', '?x', '', '**'];
  const texts = ['abc', 'abcd', 'c:\\windows\\cmd.exe', 'x net user bob', 'abbc', 'yx', '', 'zz', 'cmd.exe'];
  for (let mask = 1; mask < 1 << values.length; mask += 7) {
    const chosen = values.filter((_, bit) => mask & (1 << bit)).map((value) => SigmaString.parse(value));
    const any = compileAnyPattern(chosen, false);
    for (const text of texts) {
      const expected = chosen.some((pattern) => compilePattern(pattern, false)(text));
      assert.equal(
        any(text),
        expected,
        `${chosen.map((pattern) => JSON.stringify(pattern.tokens)).join(' ')} on ${text}`,
      );
    }
  }
  assert.equal(compileAnyPattern([], false)('abc'), false);
  assert.equal(compileAnyPattern([SigmaString.parse('ABC')], true)('abc'), false);
});

test('wrap adds a star only where there is none', () => {
  const tokens = (value: string, start: boolean, end: boolean) => SigmaString.parse(value).wrap(start, end).tokens;
  assert.deepEqual(tokens('abc', true, true), [{ wildcard: '*' }, { literal: 'abc' }, { wildcard: '*' }]);
  assert.deepEqual(tokens('*abc', true, false), [{ wildcard: '*' }, { literal: 'abc' }]);
  assert.deepEqual(tokens('abc*', false, true), [{ literal: 'abc' }, { wildcard: '*' }]);
  assert.equal(SigmaString.parse('ab*cdef?g').longestLiteral(), 'cdef');
});
