// The condition language: and/or/not, parentheses and precedence, `x of pattern` and `them`,
// condition lists, absent fields under `not`, and what the parser refuses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConditionError, parseCondition, resolveNames } from './condition.js';
import { compileRuleText } from './loader.js';
import { compileOne, ruleYaml, withFields } from './test-events.js';

// Three searches, each true when its field is 'y'.
const SEARCHES = "a:\n  A: 'y'\nb:\n  B: 'y'\nc:\n  C: 'y'\n";

/** The condition's value for every combination of a, b, c (bit 0 = a). */
function truthTable(condition: string): boolean[] {
  const rule = compileOne(`${SEARCHES}condition: ${condition}`);
  return Array.from({ length: 8 }, (_, bits) =>
    rule.match(withFields({ A: bits & 1 ? 'y' : 'n', B: bits & 2 ? 'y' : 'n', C: bits & 4 ? 'y' : 'n' })),
  );
}

function expected(formula: (a: boolean, b: boolean, c: boolean) => boolean): boolean[] {
  return Array.from({ length: 8 }, (_, bits) => formula(Boolean(bits & 1), Boolean(bits & 2), Boolean(bits & 4)));
}

test('and, or, not', () => {
  assert.deepEqual(
    truthTable('a and b'),
    expected((a, b) => a && b),
  );
  assert.deepEqual(
    truthTable('a or b'),
    expected((a, b) => a || b),
  );
  assert.deepEqual(
    truthTable('not a'),
    expected((a) => !a),
  );
  assert.deepEqual(
    truthTable('a and not b'),
    expected((a, b) => a && !b),
  );
  assert.deepEqual(
    truthTable('not not a'),
    expected((a) => a),
  );
  assert.deepEqual(
    truthTable('a AND b'),
    expected((a, b) => a && b),
  );
  assert.deepEqual(
    truthTable('a OR b'),
    expected((a, b) => a || b),
  );
});

test('precedence: not binds tighter than and, and tighter than or', () => {
  assert.deepEqual(
    truthTable('a or b and c'),
    expected((a, b, c) => a || (b && c)),
  );
  assert.deepEqual(
    truthTable('a and b or c'),
    expected((a, b, c) => (a && b) || c),
  );
  assert.deepEqual(
    truthTable('not a and b'),
    expected((a, b) => !a && b),
  );
  assert.deepEqual(
    truthTable('not a or b'),
    expected((a, b) => !a || b),
  );
  assert.deepEqual(
    truthTable('a or not b and c'),
    expected((a, b, c) => a || (!b && c)),
  );
});

test('parentheses override precedence', () => {
  assert.deepEqual(
    truthTable('(a or b) and c'),
    expected((a, b, c) => (a || b) && c),
  );
  assert.deepEqual(
    truthTable('a and (b or c)'),
    expected((a, b, c) => a && (b || c)),
  );
  assert.deepEqual(
    truthTable('not (a and b)'),
    expected((a, b) => !(a && b)),
  );
  assert.deepEqual(
    truthTable('((a))'),
    expected((a) => a),
  );
  assert.deepEqual(
    truthTable('not (a or b) or c'),
    expected((a, b, c) => !(a || b) || c),
  );
});

test('a condition list is an OR of its conditions', () => {
  const rule = compileOne(`${SEARCHES}condition:\n  - a and b\n  - c`);
  assert.equal(rule.match(withFields({ A: 'y', B: 'y', C: 'n' })), true);
  assert.equal(rule.match(withFields({ A: 'n', B: 'n', C: 'y' })), true);
  assert.equal(rule.match(withFields({ A: 'y', B: 'n', C: 'n' })), false);
});

// Searches named for the `of` tests: two selections, two filters, and an underscored helper.
const NAMED =
  "selection_img:\n  Image: 'x'\nselection_cmd:\n  Cmd: 'x'\nfilter_a:\n  Fa: 'x'\nfilter_b:\n  Fb: 'x'\n_helper:\n  H: 'x'\n";

function ofRule(condition: string) {
  return compileOne(`${NAMED}condition: ${condition}`);
}

test('1 of / any of / all of a name pattern', () => {
  const one = ofRule('1 of selection_*');
  assert.equal(one.match(withFields({ Cmd: 'x' })), true);
  assert.equal(one.match(withFields({ Image: 'x' })), true);
  assert.equal(one.match(withFields({ Fa: 'x' })), false);
  const any = ofRule('any of selection_*');
  assert.equal(any.match(withFields({ Image: 'x' })), true);
  assert.equal(any.match(withFields({ H: 'x' })), false);
  const all = ofRule('all of selection_*');
  assert.equal(all.match(withFields({ Image: 'x', Cmd: 'x' })), true);
  assert.equal(all.match(withFields({ Image: 'x' })), false);
  const filtered = ofRule('1 of selection_* and not 1 of filter_*');
  assert.equal(filtered.match(withFields({ Image: 'x' })), true);
  assert.equal(filtered.match(withFields({ Image: 'x', Fb: 'x' })), false);
  const allFiltered = ofRule('all of selection_* and not all of filter_*');
  assert.equal(allFiltered.match(withFields({ Image: 'x', Cmd: 'x', Fa: 'x' })), true);
  assert.equal(allFiltered.match(withFields({ Image: 'x', Cmd: 'x', Fa: 'x', Fb: 'x' })), false);
  // A pattern naming an underscored search explicitly does include it.
  assert.equal(ofRule('1 of _help*').match(withFields({ H: 'x' })), true);
});

test('1 of them / all of them leave out names starting with _', () => {
  const one = ofRule('1 of them');
  assert.equal(one.match(withFields({ Fb: 'x' })), true);
  assert.equal(one.match(withFields({ H: 'x' })), false);
  assert.equal(one.match(withFields({})), false);
  const all = ofRule('all of them');
  assert.equal(all.match(withFields({ Image: 'x', Cmd: 'x', Fa: 'x', Fb: 'x' })), true);
  assert.equal(all.match(withFields({ Image: 'x', Cmd: 'x', Fa: 'x' })), false);
  // _helper is not required by `all of them`.
  assert.equal(all.match(withFields({ Image: 'x', Cmd: 'x', Fa: 'x', Fb: 'x', H: 'no' })), true);
});

test('resolveNames: wildcard patterns, exact names and them', () => {
  const names = ['selection', 'selection_2', 'filter.x', '_private', 'sel'];
  assert.deepEqual(resolveNames('selection*', names), ['selection', 'selection_2']);
  assert.deepEqual(resolveNames('*tion*', names), ['selection', 'selection_2']);
  assert.deepEqual(resolveNames('filter.x', names), ['filter.x']);
  assert.deepEqual(resolveNames('filter?x', names), []);
  assert.deepEqual(resolveNames('them', names), ['selection', 'selection_2', 'filter.x', 'sel']);
  assert.deepEqual(resolveNames('nothing*', names), []);
});

test("not selection is true when the selection's field is absent", () => {
  const rule = compileOne(
    "selection:\n  Image|endswith: '\\cmd.exe'\nfilter:\n  User: 'SYSTEM'\ncondition: selection and not filter",
  );
  assert.equal(rule.match(withFields({ Image: 'C:\\cmd.exe' })), true);
  assert.equal(rule.match(withFields({ Image: 'C:\\cmd.exe', User: 'alice' })), true);
  assert.equal(rule.match(withFields({ Image: 'C:\\cmd.exe', User: 'system' })), false);
  assert.equal(rule.match(withFields({ User: 'alice' })), false);
  const notOnly = compileOne("filter:\n  User: 'SYSTEM'\ncondition: not filter");
  assert.equal(notOnly.match(withFields({})), true);
  assert.equal(notOnly.match(withFields({ User: null })), true);
  assert.equal(notOnly.match(withFields({ User: 'System' })), false);
});

test('a map is an AND of its items, a list of maps an OR', () => {
  const map = compileOne("selection:\n  A: 'y'\n  B: 'y'\ncondition: selection");
  assert.equal(map.match(withFields({ A: 'y', B: 'y' })), true);
  assert.equal(map.match(withFields({ A: 'y', B: 'n' })), false);
  const list = compileOne("selection:\n  - A: 'y'\n  - B: 'y'\ncondition: selection");
  assert.equal(list.match(withFields({ A: 'n', B: 'y' })), true);
  assert.equal(list.match(withFields({ A: 'n', B: 'n' })), false);
});

test('parseCondition: the tree for precedence, of and them', () => {
  assert.deepEqual(parseCondition('a or b and not c'), {
    type: 'or',
    children: [
      { type: 'ref', name: 'a' },
      {
        type: 'and',
        children: [
          { type: 'ref', name: 'b' },
          { type: 'not', child: { type: 'ref', name: 'c' } },
        ],
      },
    ],
  });
  assert.deepEqual(parseCondition('1 of sel*'), { type: 'of', quantifier: 1, pattern: 'sel*' });
  assert.deepEqual(parseCondition('any of them'), { type: 'of', quantifier: 1, pattern: 'them' });
  assert.deepEqual(parseCondition('ALL OF them'), { type: 'of', quantifier: 'all', pattern: 'them' });
  assert.deepEqual(parseCondition('not 1 of filter*'), {
    type: 'not',
    child: { type: 'of', quantifier: 1, pattern: 'filter*' },
  });
  assert.deepEqual(parseCondition('  (a)  '), { type: 'ref', name: 'a' });
});

test('parseCondition refuses syntax errors', () => {
  for (const text of [
    '',
    '   ',
    'a and',
    'or a',
    'a b',
    '(a or b',
    'a)',
    'not',
    'all of',
    '1 of and',
    'x of sel*',
    'a and and b',
    '()',
    'a & b',
  ]) {
    assert.throws(() => parseCondition(text), ConditionError, `'${text}' should be refused`);
  }
});

test('a syntax error or an undefined search rejects the rule, naming file and construct', () => {
  for (const condition of [
    'selection and',
    '(selection',
    'selection or missing',
    '1 of nothing*',
    'selection | count() > 5',
  ]) {
    const result = compileRuleText(ruleYaml(`selection:\n  A: 'y'\ncondition: ${condition}`), 'cond_rule.yml');
    assert.equal(result.rules.length, 0, condition);
    assert.equal(result.rejected[0]?.construct, 'detection.condition', condition);
    assert.match(result.rejected[0].message, /cond_rule\.yml/, condition);
  }
});
