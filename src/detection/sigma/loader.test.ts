// Loading rule text: what compiles, what is rejected (each rejection naming the file and the
// construct), documents failing independently of each other, and meta filters.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileRuleText } from './loader.js';
import { ruleYaml, withFields } from './test-events.js';

const FILE = 'rules/win_bad_rule.yml';

/** The one rejection of this rule text (which must compile no rule). */
function rejected(text: string, options = {}) {
  const result = compileRuleText(text, FILE, options);
  assert.equal(result.rules.length, 0, 'the rule compiled but should have been rejected');
  assert.equal(result.rejected.length, 1, JSON.stringify(result.rejected));
  const [rejection] = result.rejected;
  assert.ok(rejection);
  assert.equal(rejection.file, FILE);
  assert.match(rejection.message, /rules\/win_bad_rule\.yml/);
  return rejection;
}

const detection = (search: string) => ruleYaml(`selection:\n  ${search}\ncondition: selection`);

test('a rule compiles with its metadata', () => {
  const result = compileRuleText(
    ruleYaml("selection:\n  Image|endswith: '\\whoami.exe'\ncondition: selection", {
      id: 'abc-1',
      title: 'Whoami',
      more: 'name: whoami_run\nlevel: HIGH\nstatus: test\nauthor: someone\ntags:\n  - attack.T1033\n  - attack.Discovery\n',
    }),
    FILE,
  );
  assert.deepEqual(result.rejected, []);
  const rule = result.rules[0];
  assert.ok(rule);
  assert.equal(rule.id, 'abc-1');
  assert.equal(rule.name, 'whoami_run');
  assert.equal(rule.title, 'Whoami');
  assert.equal(rule.level, 'high');
  assert.equal(rule.status, 'test');
  assert.deepEqual(rule.tags, ['attack.t1033', 'attack.discovery']);
  assert.deepEqual(rule.logsource, { category: 'process_creation', product: 'windows' });
  assert.deepEqual(rule.fields, ['Image']);
  assert.equal(rule.file, FILE);
  assert.equal(rule.match(withFields({ Image: 'C:\\Windows\\System32\\whoami.exe' })), true);
  assert.equal(rule.match(withFields({ Image: 'C:\\Windows\\System32\\hostname.exe' })), false);
  // Level defaults to medium.
  assert.equal(compileRuleText(detection("A: 'x'"), FILE).rules[0]?.level, 'medium');
});

test('unknown modifiers and conflicting modifiers are rejected by construct', () => {
  const cases: [string, string][] = [
    ["F|bogus: 'x'", "modifier 'bogus'"],
    ["F|re|contains: 'x'", "modifier 're|contains'"],
    ["F|i: 'x'", "modifier 'i'"],
    ["F|contains|i: 'x'", "modifier 'i'"],
    ["F|re: '(unclosed'", "modifier 're'"],
    ["F|re: '(?x)a b'", "modifier 're'"],
    ["F|cidr: '10.0.0.0/33'", "modifier 'cidr'"],
    ["F|cidr: 'not-a-network'", "modifier 'cidr'"],
    ["F|cidr: '10.0.0.0/8/8'", "modifier 'cidr'"],
    ["F|lt: 'ten'", "modifier 'lt'"],
    ["F|gte: ''", "modifier 'gte'"],
    ["F|hour: 'noon'", "modifier 'hour'"],
    ["F|exists: 'yes'", "modifier 'exists'"],
    ['F|exists: [true, false]', "modifier 'exists'"],
    ["F|utf16le: 'x'", "modifier 'utf16le'"],
    ["F|wide: 'x'", "modifier 'wide'"],
    ["F|base64: 'a*b'", "modifier 'base64'"],
    ["F|base64offset|contains: 'a?b'", "modifier 'base64offset'"],
    ["F|fieldref: ''", "modifier 'fieldref'"],
    ["F|cidr|contains: '10.0.0.0/8'", "modifier 'cidr|contains'"],
    ['F|lt|gt: 5', "modifier 'lt|gt'"],
    ["F|windash: '-a -b -c -d -e'", "modifier 'windash'"],
  ];
  for (const [search, construct] of cases) {
    const rejection = rejected(detection(search));
    assert.equal(rejection.construct, construct, search);
    assert.match(rejection.message, /detection\.selection/, search);
  }
});

test('values that are neither text, number, boolean nor null are rejected', () => {
  assert.equal(rejected(detection('F:\n    nested: x')).construct, "value of 'F'");
  assert.equal(rejected(detection('F: []')).construct, "value of 'F'");
  assert.equal(rejected(ruleYaml('selection: {}\ncondition: selection')).construct, 'search');
  assert.equal(rejected(ruleYaml('selection:\n  - a\n  - B: x\ncondition: selection')).construct, 'search');
});

test('Sigma 1 constructs are rejected: aggregations, timeframe, action: global', () => {
  const aggregation = rejected(ruleYaml("selection:\n  A: 'x'\ncondition: selection | count() by User > 5"));
  assert.equal(aggregation.construct, 'detection.condition');
  assert.match(aggregation.message, /aggregation/);
  const timeframe = rejected(ruleYaml("selection:\n  A: 'x'\ntimeframe: 5m\ncondition: selection"));
  assert.equal(timeframe.construct, 'detection.timeframe');
  const global = rejected(
    `action: global\ntitle: Collection\nlogsource:\n  product: windows\ndetection:\n  selection:\n    A: 'x'\n  condition: selection\n`,
  );
  assert.equal(global.construct, 'action');
});

test('condition: syntax errors and undefined searches', () => {
  for (const condition of ['selection and', 'selection or (other', 'selection or missing', 'all of filter*']) {
    const rejection = rejected(ruleYaml(`selection:\n  A: 'x'\ncondition: ${condition}`));
    assert.equal(rejection.construct, 'detection.condition', condition);
  }
  assert.match(rejected(ruleYaml("selection:\n  A: 'x'\ncondition: missing")).message, /'missing'/);
  assert.equal(rejected(ruleYaml("selection:\n  A: 'x'\ncondition: 5")).construct, 'detection.condition');
});

test('a rule or correlation without an id (optional in the spec) gets a stable one derived from its content', () => {
  const noId =
    "title: T\nlogsource:\n  product: windows\ndetection:\n  selection:\n    A: 'x'\n  condition: selection\n";
  const first = compileRuleText(noId, 'a.yml');
  const again = compileRuleText(noId, 'moved/b.yml');
  assert.deepEqual(first.rejected, []);
  assert.match(first.rules[0]?.id ?? '', /^derived-[0-9a-f]{24}$/);
  assert.equal(again.rules[0]?.id, first.rules[0]?.id, 'the same rule keeps its id wherever it lives');
  const edited = compileRuleText(noId.replace("'x'", "'y'"), 'a.yml');
  assert.notEqual(edited.rules[0]?.id, first.rules[0]?.id);
  const correlation = compileRuleText(
    `${noId}---\ntitle: Burst\ncorrelation:\n  type: event_count\n  rules: [${first.rules[0]?.id}]\n  group-by: [Host]\n  timespan: 5m\n  condition:\n    gte: 3\n`,
    'c.yml',
  );
  assert.deepEqual(correlation.rejected, []);
  assert.match(correlation.correlations[0]?.id ?? '', /^derived-/);
});

test('missing or wrong rule parts are rejected by construct', () => {
  const noDetection = 'title: T\nid: x-1\nlogsource:\n  product: windows\n';
  assert.equal(rejected(noDetection).construct, 'detection');
  const noCondition = "title: T\nid: x-2\nlogsource:\n  product: windows\ndetection:\n  selection:\n    A: 'x'\n";
  assert.equal(rejected(noCondition).construct, 'detection.condition');
  const noSearch = 'title: T\nid: x-3\nlogsource:\n  product: windows\ndetection:\n  condition: selection\n';
  assert.equal(rejected(noSearch).construct, 'detection');
  const noTitle =
    "id: x-4\nlogsource:\n  product: windows\ndetection:\n  selection:\n    A: 'x'\n  condition: selection\n";
  assert.equal(rejected(noTitle).construct, 'title');
  const badId =
    "title: T\nid: 42\nlogsource:\n  product: windows\ndetection:\n  selection:\n    A: 'x'\n  condition: selection\n";
  const idRejection = rejected(badId);
  assert.equal(idRejection.construct, 'id');
  assert.equal(idRejection.title, 'T');
  assert.equal(
    rejected(ruleYaml("selection:\n  A: 'x'\ncondition: selection", { more: 'level: severe\n' })).construct,
    'level',
  );
  assert.equal(
    rejected(ruleYaml("selection:\n  A: 'x'\ncondition: selection", { more: 'tags: attack.t1059\n' })).construct,
    'tags',
  );
  const noLogsource = "title: T\nid: x-5\ndetection:\n  selection:\n    A: 'x'\n  condition: selection\n";
  assert.equal(rejected(noLogsource).construct, 'logsource');
  assert.equal(
    rejected(ruleYaml("selection:\n  A: 'x'\ncondition: selection", { logsource: '  product: [a, b]' })).construct,
    'logsource.product',
  );
});

test("a rejection names the rule's id and title when it has them", () => {
  const rejection = rejected(
    ruleYaml("selection:\n  F|bogus: 'x'\ncondition: selection", { id: 'id-42', title: 'Named rule' }),
  );
  assert.equal(rejection.id, 'id-42');
  assert.equal(rejection.title, 'Named rule');
  assert.match(rejection.message, /id-42/);
  assert.match(rejection.message, /Named rule/);
  assert.match(rejection.message, /bogus/);
});

test('one bad document does not stop the others in the same text', () => {
  const good = (id: string) => ruleYaml("selection:\n  A: 'x'\ncondition: selection", { id });
  const text = [
    good('good-1'),
    ruleYaml("selection:\n  F|bogus: 'x'\ncondition: selection", { id: 'bad-1' }),
    good('good-2'),
    'title: [unclosed\nid: broken\n',
    '- just\n- a list\n',
    good('good-3'),
  ].join('---\n');
  const result = compileRuleText(text, FILE);
  assert.deepEqual(
    result.rules.map((rule) => rule.id),
    ['good-1', 'good-2', 'good-3'],
  );
  assert.deepEqual(result.rejected.map((entry) => entry.construct).sort(), ['document', "modifier 'bogus'", 'yaml']);
  for (const entry of result.rejected) {
    assert.equal(entry.file, FILE);
    assert.match(entry.message, /win_bad_rule\.yml/);
  }
});

test('an invalid YAML text is rejected as yaml', () => {
  const rejection = rejected('title: "unterminated\nid: x\n');
  assert.equal(rejection.construct, 'yaml');
  assert.match(rejection.message, /YAML/);
});

test('a duplicate id across documents rejects the later one', () => {
  const text = [
    ruleYaml("selection:\n  A: 'x'\ncondition: selection", { id: 'same-id', title: 'First' }),
    ruleYaml("selection:\n  B: 'x'\ncondition: selection", { id: 'same-id', title: 'Second' }),
  ].join('---\n');
  const result = compileRuleText(text, FILE);
  assert.deepEqual(
    result.rules.map((rule) => rule.title),
    ['First'],
  );
  assert.equal(result.rejected.length, 1);
  assert.equal(result.rejected[0]?.construct, 'id');
  assert.equal(result.rejected[0].title, 'Second');
  assert.match(result.rejected[0].message, /same-id/);
});

// Meta filters: the rule, and a filter document naming it by id and by name.
const BASE_RULE = ruleYaml("selection:\n  Image|endswith: '\\rar.exe'\ncondition: selection", {
  id: 'rule-rar',
  title: 'Rar',
  more: 'name: rar_usage\n',
});
const OTHER_RULE = ruleYaml("selection:\n  Image|endswith: '\\7z.exe'\ncondition: selection", {
  id: 'rule-7z',
  title: '7z',
});

function filterDoc(
  rules: string[],
  body = "selection:\n    User|startswith: 'adm_'\n  condition: not selection",
): string {
  return `title: Filter admins\nid: filter-1\nlogsource:\n  category: process_creation\n  product: windows\nfilter:\n  rules:\n${rules.map((rule) => `    - ${rule}\n`).join('')}  ${body}\n`;
}

test('a meta filter is ANDed onto the rules it names, by id or by name', () => {
  for (const reference of ['rule-rar', 'rar_usage']) {
    const result = compileRuleText([BASE_RULE, OTHER_RULE, filterDoc([reference])].join('---\n'), FILE);
    assert.deepEqual(result.rejected, []);
    assert.equal(result.filters, 1);
    const [rar, sevenZip] = result.rules;
    assert.ok(rar && sevenZip);
    assert.equal(rar.match(withFields({ Image: 'C:\\rar.exe', User: 'alice' })), true, reference);
    assert.equal(rar.match(withFields({ Image: 'C:\\rar.exe', User: 'adm_bob' })), false, reference);
    assert.equal(rar.match(withFields({ Image: 'C:\\rar.exe' })), true, reference);
    assert.equal(rar.match(withFields({ Image: 'C:\\zip.exe', User: 'alice' })), false, reference);
    // The rule the filter does not name is untouched.
    assert.equal(sevenZip.match(withFields({ Image: 'C:\\7z.exe', User: 'adm_bob' })), true, reference);
    // The filter's fields are evidence, and the pre-filter still needs the rule's literal.
    assert.deepEqual([...rar.fields].sort(), ['Image', 'User']);
    assert.deepEqual(rar.requirement, [{ field: 'Image', literal: '\\rar.exe', at: 'end' }]);
  }
});

test('a filter may name several rules, and filters are counted per rule', () => {
  const result = compileRuleText([BASE_RULE, OTHER_RULE, filterDoc(['rule-rar', 'rule-7z'])].join('---\n'), FILE);
  assert.deepEqual(result.rejected, []);
  assert.equal(result.filters, 2);
  for (const rule of result.rules) {
    assert.equal(
      rule.match(withFields({ Image: `C:\\${rule.id === 'rule-rar' ? 'rar' : '7z'}.exe`, User: 'adm_x' })),
      false,
      rule.id,
    );
    assert.equal(
      rule.match(withFields({ Image: `C:\\${rule.id === 'rule-rar' ? 'rar' : '7z'}.exe`, User: 'x' })),
      true,
      rule.id,
    );
  }
  // Two filters on one rule both apply.
  const second = filterDoc(['rule-rar'], "selection:\n    User: 'svc_backup'\n  condition: not selection").replace(
    'id: filter-1',
    'id: filter-2',
  );
  const both = compileRuleText([BASE_RULE, filterDoc(['rule-rar']), second].join('---\n'), FILE);
  assert.equal(both.filters, 2);
  const rar = both.rules[0];
  assert.ok(rar);
  assert.equal(rar.match(withFields({ Image: 'C:\\rar.exe', User: 'svc_backup' })), false);
  assert.equal(rar.match(withFields({ Image: 'C:\\rar.exe', User: 'adm_x' })), false);
  assert.equal(rar.match(withFields({ Image: 'C:\\rar.exe', User: 'alice' })), true);
});

test('a filter naming an unknown rule, or malformed, is rejected and the rules load unfiltered', () => {
  const result = compileRuleText([BASE_RULE, filterDoc(['no-such-rule'])].join('---\n'), FILE);
  assert.equal(result.filters, 0);
  assert.equal(result.rules.length, 1);
  assert.equal(result.rejected.length, 1);
  assert.equal(result.rejected[0]?.construct, 'filter.rules');
  assert.match(result.rejected[0].message, /no-such-rule/);
  assert.match(result.rejected[0].message, /win_bad_rule\.yml/);
  assert.equal(result.rules[0]?.match(withFields({ Image: 'C:\\rar.exe', User: 'adm_bob' })), true);

  const noRules = compileRuleText(
    [
      BASE_RULE,
      'title: F\nid: f-2\nlogsource:\n  product: windows\nfilter:\n  selection:\n    A: x\n  condition: selection\n',
    ].join('---\n'),
    FILE,
  );
  assert.equal(noRules.rejected[0]?.construct, 'filter.rules');
  const badCondition = compileRuleText(
    [BASE_RULE, filterDoc(['rule-rar'], 'selection:\n    A: x\n  condition: not missing')].join('---\n'),
    FILE,
  );
  assert.equal(badCondition.rejected[0]?.construct, 'filter.condition');
  assert.equal(badCondition.filters, 0);
});
