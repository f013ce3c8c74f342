import { test } from 'node:test';
import assert from 'node:assert/strict';
import { equalityClause, queryClauses, type Clause } from './telemetry-prefilter.js';
import { parseTelemetryQuery } from './telemetry-query.js';

const holds = (clause: Clause | undefined, text: string) => clause?.any.some((needle) => text.includes(needle));
const holdsPlain = (clause: Clause | undefined, text: string) => clause?.plain.some((needle) => text.includes(needle));

test('every way JSON can write an equal number holds one of its needles', () => {
  const writings: [number, string[]][] = [
    [503, ['503', '503.0', '5.03e2', '50.3E1', '5030e-1', '0.0503e4', '5.030e+2']],
    [-0.00125, ['-0.00125', '-1.25e-3', '-12.5e-4', '-125E-5']],
    [4624, ['4624', '4.624e3', '46.24e2', '462.4e1']],
    [1e21, ['1e21', '1E+21', '10e20', '0.1e22']],
  ];
  for (const [value, texts] of writings) {
    const clause = equalityClause({ number: value });
    for (const text of texts) {
      assert.equal(JSON.parse(text), value, `${text} is ${value}`);
      assert.ok(holds(clause, `{"v":${text}}`), `${text} holds a needle of ${JSON.stringify(clause)}`);
    }
    assert.ok(!holds(clause, '{"v":7}'), `7 is turned away for ${value}`);
  }
});

test('every plain decimal writing of an equal number holds one of its plain needles', () => {
  const writings: [number, string[]][] = [
    [503, ['503', '503.0', '503.000', '-503']],
    [5.03, ['5.03', '5.030', '-5.03']],
    [-0.00125, ['-0.00125', '0.001250']],
    [5e-7, ['0.0000005', '0.00000050']],
    [1.5e21, ['1500000000000000000000', '1500000000000000000000.0']],
    [0, ['0', '0.0', '-0']],
  ];
  for (const [value, texts] of writings) {
    const clause = equalityClause({ number: value });
    assert.ok(clause?.plain.length === 1, `one plain needle for ${value}: ${JSON.stringify(clause)}`);
    for (const text of texts) {
      assert.equal(Math.abs(JSON.parse(text) as number), Math.abs(value), `${text} is ±${value}`);
      assert.ok(holdsPlain(clause, `{"v":${text}}`), `${text} holds a plain needle of ${JSON.stringify(clause)}`);
    }
    assert.ok(!holdsPlain(clause, '{"v":7}'), `7 is turned away for ${value}`);
  }
  // A string that reads as a number: the string and the number share the needle.
  assert.deepEqual(equalityClause({ text: '503', number: 503 })?.plain, ['503']);
});

test('a string is its own needle; an escaped writing passes on the backslash', () => {
  const clause = equalityClause({ text: 'web-01' });
  assert.ok(holds(clause, '{"host":"web-01"}'));
  assert.ok(holds(clause, '{"host":"web\\u002d01"}'));
  assert.ok(!holds(clause, '{"host":"web-02"}'));
  // What JSON must escape, and JSON text of objects, get no test at all.
  for (const text of ['a"b', 'a\\b', 'tab\there', '{"a":1}', '[1]', ''])
    assert.equal(equalityClause({ text }), undefined, text);
});

test('clauses follow AND, OR and NOT', () => {
  const clauses = (query: string) => {
    const node = parseTelemetryQuery(query);
    assert.ok(node, `${query} parses`);
    return queryClauses(node);
  };
  assert.deepEqual(clauses('host:web-01 AND level:"error"'), [
    { any: ['web-01', '\\'], plain: ['web-01'] },
    { any: ['error', '\\'], plain: ['error'] },
  ]);
  assert.deepEqual(clauses('host:web-01 OR host:web-02'), [
    { any: ['web-01', '\\', 'web-02'], plain: ['web-01', 'web-02'] },
  ]);
  // An alternative without a needle (a negation, a word, a range) leaves the OR without one.
  assert.deepEqual(clauses('host:web-01 OR NOT host:web-02'), []);
  assert.deepEqual(clauses('host:web-01 OR quarantined'), []);
  assert.deepEqual(clauses('NOT host:web-01'), []);
  assert.deepEqual(clauses('v:true'), [{ any: ['true', '\\'], plain: ['true'] }]);
});
