// Flattening: dotted names, arrays, and the caps that bound what a hostile record costs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newFields } from './fields.js';
import { FLATTEN_LIMITS, flattenInto, TRUNCATED_FIELD } from './flatten.js';
import { createNormaliser, loadPipeline } from './index.js';

function flatten(record: Record<string, unknown>, limits = FLATTEN_LIMITS) {
  const fields = newFields();
  const truncated = flattenInto(record, fields, limits);
  return { fields: { ...fields }, truncated };
}

test('nested objects become dotted names; scalar arrays stay arrays; top-level keys keep their names', () => {
  const { fields, truncated } = flatten({
    a: { b: { c: 1 } },
    'x.y': 'dotted key',
    tags: ['a', 'b'],
    empty: {},
    nothing: null,
    ok: true,
  });
  assert.deepEqual(fields, { 'a.b.c': 1, 'x.y': 'dotted key', tags: ['a', 'b'], nothing: null, ok: true });
  assert.equal(truncated, false);
});

test('arrays of objects: one array per dotted path, nested arrays concatenated; mixed arrays keep their scalars', () => {
  const { fields } = flatten({
    containers: [
      { name: 'a', ports: [{ containerPort: 80 }, { containerPort: 443 }], args: ['-v'] },
      { name: 'b', securityContext: { privileged: true }, args: ['-x', '-y'] },
    ],
    mixed: ['plain', { key: 'value' }],
    matrix: [[1, 2], [3]],
  });
  assert.deepEqual(fields['containers.name'], ['a', 'b']);
  assert.deepEqual(fields['containers.ports.containerPort'], [80, 443]);
  assert.deepEqual(fields['containers.args'], ['-v', '-x', '-y']);
  assert.deepEqual(fields['containers.securityContext.privileged'], [true]);
  assert.deepEqual(fields.mixed, ['plain']);
  assert.deepEqual(fields['mixed.key'], ['value']);
  assert.deepEqual(fields.matrix, [1, 2, 3]);
});

test('`__proto__` and `constructor` are plain field names', () => {
  const fields = newFields();
  flattenInto(JSON.parse('{"__proto__": {"polluted": 1}, "constructor": "x"}') as Record<string, unknown>, fields);
  assert.equal(fields['__proto__.polluted'], 1);
  assert.equal(fields.constructor, 'x');
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(Reflect.get(newFields(), 'toString'), undefined, 'no inherited names');
});

test('caps: depth, field count and array length are bounded and reported', () => {
  const limits = { maxDepth: 3, maxFields: 5, maxArrayValues: 4 };
  assert.deepEqual(flatten({ a: { b: { c: 1, d: { e: 2 } } } }, limits), { fields: { 'a.b.c': 1 }, truncated: true });
  const wide = flatten(Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, i])), limits);
  assert.equal(Object.keys(wide.fields).length, 5);
  assert.equal(wide.truncated, true);
  assert.deepEqual(flatten({ list: [1, 2, 3, 4, 5, 6] }, limits), { fields: { list: [1, 2, 3, 4] }, truncated: true });
  assert.deepEqual(flatten({ list: [{ v: 1 }, { v: 2 }, { v: 3 }, { v: 4 }, { v: 5 }] }, limits), {
    fields: { 'list.v': [1, 2, 3, 4] },
    truncated: true,
  });
  const manyPaths = flatten({ list: Array.from({ length: 20 }, (_, i) => ({ [`p${i}`]: i })) }, limits);
  assert.equal(Object.keys(manyPaths.fields).length, 5);
});

// The caps are what bound the work a hostile record costs; its speed belongs to the benchmarks.
test('a hostile record (nesting as deep as the collector allows, wide and long) normalises within the caps', () => {
  let deep: unknown = 'bottom';
  for (let i = 0; i < 127; i++) deep = i % 2 === 0 ? { [`level${i}`]: deep } : [deep];
  const record = {
    message: 'hostile',
    deep,
    wide: Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`f${i}`, i])),
    long: Array.from({ length: 50_000 }, (_, i) => ({ [`k${i % 3000}`]: i })),
  };
  const normaliser = createNormaliser(loadPipeline());
  const event = normaliser.normalise({
    seq: 1,
    tenantId: 1,
    receivedAt: 0,
    eventTime: 0,
    record: JSON.stringify(record),
    meta: null,
  });
  assert.equal(event.fields[TRUNCATED_FIELD], true);
  assert.ok(
    Object.keys(event.fields).length <= FLATTEN_LIMITS.maxFields + 10,
    'field count capped (plus the few taxonomy fields)',
  );
  for (const value of Object.values(event.fields))
    if (Array.isArray(value)) assert.ok(value.length <= FLATTEN_LIMITS.maxArrayValues);
  assert.equal(event.keywords, 'hostile');
});
