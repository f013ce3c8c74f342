// fast-check arbitraries from the JSON schemas of the OpenAPI document: values of the declared
// shape (validArbitrary), so that requests get past validation and reach the handlers, and the
// values fuzzing is for (wrongValue) — wrong types, out-of-range and non-finite numbers,
// over-long and odd Unicode strings, deep nesting — which a request puts in one place at a time.
import fc from 'fast-check';

export interface JsonSchema {
  type?: string | string[];
  $ref?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  format?: string;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  maxItems?: number;
}

/** Strings a parser or a store may trip on. */
const awkwardString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\uFFFF',
    '\uD800',
    '😀'.repeat(300),
    'x'.repeat(5_000),
    '../../etc/passwd',
    "' OR 1=1 --",
    '%00',
    '{"a":1}',
    '1e999',
    'Infinity',
    'NaN',
    '-0',
    'null',
    '2026-02-30T25:61:61Z',
    '9999-12-31T23:59:59.999Z',
    '0000-01-01T00:00:00Z',
  ),
);

/** Numbers at and past every edge a schema or a database column has. */
const awkwardNumber = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -1, 1, 2 ** 31, 2 ** 53, -(2 ** 53), 1e300, -1e300, 0.5),
);

/** JSON nested `depth` levels deep. */
export const nested = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
};

/** Numbers written as text, as a query string carries them: past every range, or not numbers. */
const edgeNumberText = fc.constantFrom('1e999', '-1e999', 'Infinity', '-Infinity', 'NaN', '1e308', '-1', '0x10', '1.5');

export const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  awkwardString,
  awkwardNumber,
  edgeNumberText,
  fc.boolean(),
  fc.constant(null),
  fc.jsonValue({ maxDepth: 3 }),
  // Around the API's nesting limit, and past it (deeper bodies are generated as text: see fuzz-api).
  fc.oneof(fc.integer({ min: 50, max: 70 }), fc.constant(1_000)).map(nested),
);

function resolve(schema: JsonSchema, components: Record<string, JsonSchema>): JsonSchema {
  let current = schema;
  for (let hops = 0; current.$ref && hops < 10; hops++) {
    const name = current.$ref.replace(/^#\/components\/schemas\//, '').replace(/#$/, '');
    current = components[name] ?? {};
  }
  return current;
}

/** A value of `schema`'s shape, within its limits where it states them. */
export function validArbitrary(
  schema: JsonSchema,
  components: Record<string, JsonSchema>,
  depth = 0,
): fc.Arbitrary<unknown> {
  const resolved = resolve(schema, components);
  if (depth > 6) return fc.constant(null);
  if (resolved.const !== undefined) return fc.constant(resolved.const);
  if (resolved.enum) return fc.constantFrom(...resolved.enum);
  const union = resolved.anyOf ?? resolved.oneOf;
  if (union && union.length > 0) return fc.oneof(...union.map((part) => validArbitrary(part, components, depth + 1)));
  if (resolved.allOf && resolved.allOf.length > 0)
    return validArbitrary(resolved.allOf[0] ?? {}, components, depth + 1);
  const type = Array.isArray(resolved.type) ? resolved.type[0] : resolved.type;
  switch (type) {
    case 'string':
      if (resolved.format === 'date-time') return fc.date({ noInvalidDate: true }).map((date) => date.toISOString());
      return fc.string({ minLength: 1, maxLength: Math.min(resolved.maxLength ?? 20, 20) });
    case 'integer':
      return fc.integer({ min: resolved.minimum ?? 0, max: Math.min(resolved.maximum ?? 1000, 2 ** 31) });
    case 'number':
      return fc.double({ min: resolved.minimum ?? 0, max: resolved.maximum ?? 1000, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(validArbitrary(resolved.items ?? {}, components, depth + 1), {
        maxLength: Math.min(resolved.maxItems ?? 3, 3),
      });
    default: {
      const properties = Object.entries(resolved.properties ?? {});
      return fc.record(
        Object.fromEntries(properties.map(([name, part]) => [name, validArbitrary(part, components, depth + 1)])),
        { requiredKeys: resolved.required?.filter((name) => resolved.properties?.[name] !== undefined) ?? [] },
      );
    }
  }
}

/** A value for `schema`: usually of its shape, sometimes deliberately not. */
export function schemaArbitrary(
  schema: JsonSchema,
  components: Record<string, JsonSchema>,
  depth = 0,
): fc.Arbitrary<unknown> {
  const shaped = shapedArbitrary(resolve(schema, components), components, depth);
  return fc.oneof({ weight: 4, arbitrary: shaped }, { weight: 1, arbitrary: wrongValue });
}

function shapedArbitrary(
  schema: JsonSchema,
  components: Record<string, JsonSchema>,
  depth: number,
): fc.Arbitrary<unknown> {
  if (depth > 6) return wrongValue;
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.oneof(fc.constantFrom(...schema.enum), awkwardString);
  const union = schema.anyOf ?? schema.oneOf;
  if (union && union.length > 0) return fc.oneof(...union.map((part) => schemaArbitrary(part, components, depth + 1)));
  if (schema.allOf && schema.allOf.length > 0) return schemaArbitrary(schema.allOf[0] ?? {}, components, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      if (schema.format === 'date-time')
        return fc.oneof(
          fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
          awkwardString,
        );
      return fc.oneof(
        awkwardString,
        fc.string({ minLength: schema.maxLength ?? 1, maxLength: (schema.maxLength ?? 1) + 2 }),
      );
    case 'integer':
    case 'number':
      return fc.oneof(
        fc.integer({
          min: Math.max(schema.minimum ?? -1000, -(2 ** 31)),
          max: Math.min(schema.maximum ?? 1000, 2 ** 31),
        }),
        awkwardNumber,
        edgeNumberText,
      );
    case 'boolean':
      return fc.oneof(fc.boolean(), fc.constantFrom('true', 'yes', 0, 1));
    case 'array':
      return fc.array(schemaArbitrary(schema.items ?? {}, components, depth + 1), {
        maxLength: Math.min((schema.maxItems ?? 5) + 1, 120),
      });
    case 'object':
    case undefined: {
      const properties = Object.entries(schema.properties ?? {});
      if (properties.length === 0) return fc.dictionary(awkwardString, wrongValue, { maxKeys: 4 });
      const record = fc.record(
        Object.fromEntries(properties.map(([name, part]) => [name, schemaArbitrary(part, components, depth + 1)])),
        { requiredKeys: schema.required?.filter((name) => schema.properties?.[name] !== undefined) ?? [] },
      );
      // Sometimes a field no schema declares.
      return fc
        .tuple(record, fc.option(fc.tuple(awkwardString, wrongValue)))
        .map(([value, extra]) => (extra ? { ...value, [extra[0]]: extra[1] } : value));
    }
    default:
      return wrongValue;
  }
}
