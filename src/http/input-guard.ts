// Bounds on API input that hold before anything walks it: a JSON body nested deeper than
// MAX_JSON_DEPTH is refused before it is parsed, and every value a route receives (path,
// query, body) is checked without recursion for what no field may hold — a NUL character
// (PostgreSQL text cannot store one) and a number that is not finite (`1e999`, `Infinity`,
// which schema coercion turns into Infinity).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../core/errors.js';

/** Deeper than any request body of the API needs (filters nest three or four levels). */
export const MAX_JSON_DEPTH = 64;

/** The nesting depth of a JSON text, or MAX+1 as soon as it goes past `max` (one pass, no recursion). */
export function jsonDepth(text: string, max = MAX_JSON_DEPTH): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > max) return deepest;
      }
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return deepest;
}

/** Why a value cannot be accepted, with the JSON-pointer-like path of the offending field. */
export function inputProblem(value: unknown, root: string): AppError | undefined {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: root, depth: 0 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value: current, path, depth } = item;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return nulProblem(path);
    } else if (typeof current === 'number') {
      if (!Number.isFinite(current))
        return new AppError('invalid_request', `${path} must be a finite number`, { extensions: { field: path } });
    } else if (current !== null && typeof current === 'object') {
      if (depth >= MAX_JSON_DEPTH) return tooDeep(path);
      const entries = Array.isArray(current)
        ? current.map((element, index) => [String(index), element] as const)
        : Object.entries(current);
      for (const [key, element] of entries) {
        if (key.includes('\u0000')) return nulProblem(`${path}/${key}`);
        stack.push({ value: element, path: `${path}/${key}`, depth: depth + 1 });
      }
    }
  }
  return undefined;
}

function nulProblem(path: string): AppError {
  return new AppError('invalid_request', `${path} contains a NUL character, which no field may hold`, {
    extensions: { field: path },
  });
}

function tooDeep(where: string): AppError {
  return new AppError('nesting_too_deep', `${where} is nested more than ${MAX_JSON_DEPTH} levels deep`, {
    extensions: { limit: MAX_JSON_DEPTH },
  });
}

/**
 * Installs the guards on a scope: its JSON parser refuses over-deep bodies before parsing
 * (keeping Fastify's prototype-poisoning protection), and every request's input is checked
 * after validation, when coercion has made numbers of query strings.
 */
export function installInputGuards(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (jsonDepth(text) > MAX_JSON_DEPTH) {
      done(tooDeep('body'), undefined);
      return;
    }
    // The default parser answers through done(); its type also allows a promise, which it never returns.
    void parseJson(request, text, done);
  });
  app.addHook('preHandler', (request: FastifyRequest, _reply, done) => {
    const problem =
      inputProblem(request.params, 'params') ??
      inputProblem(request.query, 'querystring') ??
      inputProblem(request.body, 'body');
    done(problem);
  });
}
