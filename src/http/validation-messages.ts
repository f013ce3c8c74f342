// Turns a schema validator's findings into sentences a person reads: which field, where (body,
// query, path, header), what was expected, and what came instead. The machine code stays
// `invalid_request`; the `errors` extension carries the same as data for programs.
import type { FastifySchemaValidationError } from 'fastify';

export interface FieldProblem {
  /** body, query, path or header. */
  in: string;
  /** The field's path in that part, dotted (`filters.host`, `items[2]`); empty for the part itself. */
  field: string;
  /** What was expected, in words: "must be a whole number". */
  message: string;
}

const parts: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

const typeWords: Record<string, string> = {
  integer: 'a whole number',
  number: 'a number',
  string: 'text',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  null: 'null',
};

const formatWords: Record<string, string> = {
  'date-time': 'a date and time such as 2026-11-22T10:00:00Z',
  date: 'a date such as 2026-11-22',
  email: 'an email address',
  uri: 'a URL',
  url: 'a URL',
  uuid: 'a UUID',
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
};

/** Values of fields with these names are never echoed back. */
const SECRET_FIELD = /pass|secret|token|key|code|credential/i;
const MAX_ECHO = 60;

function fieldPath(instancePath: string, extra?: string): string {
  const segments = instancePath.split('/').slice(1);
  if (extra !== undefined) segments.push(extra);
  let path = '';
  for (const raw of segments) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    path += /^\d+$/.test(segment) ? `[${segment}]` : path === '' ? segment : `.${segment}`;
  }
  return path;
}

function list(values: readonly unknown[]): string {
  return values.map((value) => (typeof value === 'string' ? value : JSON.stringify(value))).join(', ');
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

function expectation(error: FastifySchemaValidationError & { parentSchema?: Record<string, unknown> }): string {
  const params = error.params;
  switch (error.keyword) {
    case 'type': {
      const types = String(params.type).split(',');
      return `must be ${types.map((type) => typeWords[type] ?? type).join(' or ')}`;
    }
    case 'required':
      return 'is required';
    case 'additionalProperties': {
      const known = Object.keys((error.parentSchema?.properties as object | undefined) ?? {});
      return `is not a field this request takes${known.length ? ` (it takes ${known.join(', ')})` : ''}`;
    }
    case 'enum':
      return `must be one of ${list(params.allowedValues as unknown[])}`;
    case 'const':
      return `must be ${list([params.allowedValue])}`;
    case 'minimum':
      return `must be at least ${String(params.limit)}`;
    case 'maximum':
      return `must be at most ${String(params.limit)}`;
    case 'exclusiveMinimum':
      return `must be more than ${String(params.limit)}`;
    case 'exclusiveMaximum':
      return `must be less than ${String(params.limit)}`;
    case 'minLength':
      return Number(params.limit) === 1
        ? 'must not be empty'
        : `must be at least ${plural(Number(params.limit), 'character', 'characters')} long`;
    case 'maxLength':
      return `must be at most ${plural(Number(params.limit), 'character', 'characters')} long`;
    case 'minItems':
      return `must hold at least ${plural(Number(params.limit), 'item', 'items')}`;
    case 'maxItems':
      return `must hold at most ${plural(Number(params.limit), 'item', 'items')}`;
    case 'minProperties':
      return `must set at least ${plural(Number(params.limit), 'field', 'fields')}`;
    case 'maxProperties':
      return `must set at most ${plural(Number(params.limit), 'field', 'fields')}`;
    case 'uniqueItems':
      return `must not repeat an item (items ${String(params.j)} and ${String(params.i)} are the same)`;
    case 'format':
      return `must be ${formatWords[String(params.format)] ?? `in the ${String(params.format)} format`}`;
    case 'pattern': {
      const examples = error.parentSchema?.examples;
      const example = Array.isArray(examples) && examples.length > 0 ? `, such as ${list([examples[0]])}` : '';
      return `is not in the expected form (pattern ${String(params.pattern)})${example}`;
    }
    case 'anyOf':
    case 'oneOf':
      return 'does not match any of the accepted forms';
    default:
      return error.message ?? 'is not valid';
  }
}

/** The findings worth telling: a combinator's own "matches none" only when nothing more precise exists. */
function mostPrecise(errors: readonly FastifySchemaValidationError[]): FastifySchemaValidationError[] {
  const precise = errors.filter((error) => error.keyword !== 'anyOf' && error.keyword !== 'oneOf');
  return precise.length > 0 ? precise : [...errors];
}

/** A field that failed every branch of a choice of values (`one of …` | `all`) gets one list of them. */
function mergeChoices(errors: FastifySchemaValidationError[]): FastifySchemaValidationError[] {
  const merged: FastifySchemaValidationError[] = [];
  for (const error of errors) {
    const values =
      error.keyword === 'enum'
        ? (error.params.allowedValues as unknown[])
        : error.keyword === 'const'
          ? [error.params.allowedValue]
          : undefined;
    const previous = merged.find((seen) => seen.instancePath === error.instancePath && seen.keyword === 'enum');
    if (values && previous) {
      previous.params = { allowedValues: [...(previous.params.allowedValues as unknown[]), ...values] };
      continue;
    }
    merged.push(values ? { ...error, keyword: 'enum', params: { allowedValues: values } } : error);
  }
  return merged;
}

export function fieldProblems(errors: readonly FastifySchemaValidationError[], context: string): FieldProblem[] {
  return mergeChoices(mostPrecise(errors)).map((error) => {
    const params = error.params;
    const extra =
      error.keyword === 'required'
        ? String(params.missingProperty)
        : error.keyword === 'additionalProperties'
          ? String(params.additionalProperty)
          : undefined;
    const field = fieldPath(error.instancePath, extra);
    let message = expectation(error);
    const data = (error as { data?: unknown }).data;
    const echoes = [
      'type',
      'enum',
      'const',
      'minimum',
      'maximum',
      'exclusiveMinimum',
      'exclusiveMaximum',
      'format',
      'pattern',
    ];
    if (echoes.includes(error.keyword) && data !== undefined && !SECRET_FIELD.test(field)) {
      const shown = JSON.stringify(data);
      message += `; got ${shown.length > MAX_ECHO ? `${shown.slice(0, MAX_ECHO)}…` : shown}`;
    }
    return { in: parts[context] ?? context, field, message };
  });
}

/** "the field limit in the body must be a whole number; got "abc"" */
export function describeProblem(problem: FieldProblem): string {
  if (problem.field === '') return `the ${problem.in === 'query' ? 'query string' : problem.in} ${problem.message}`;
  const where =
    problem.in === 'body'
      ? `the field ${problem.field} in the body`
      : problem.in === 'query'
        ? `the query parameter ${problem.field}`
        : problem.in === 'path'
          ? `the path parameter ${problem.field}`
          : `the header ${problem.field}`;
  return `${where} ${problem.message}`;
}
