// Fastify compiles each route's request validators (Ajv) and response serializers
// (fast-json-stringify) when a server is built: over a second of CPU for this API. The compiled
// functions are pure, so a process that builds several servers (the test suites; a benchmark
// that restarts one) compiles each distinct schema once: the compilers below hand back the
// function already compiled for an identical schema and options. One server a process, as in
// `sightline serve`, compiles exactly what Fastify's own compilers would.
//
// A compilers factory of our own counts, for Fastify, as a custom validator: it then passes
// `headers` schemas on as written instead of lower-casing their property names, so a route's
// headers schema names its headers in lower case.
import { AjvCompiler, type ValidatorFactory } from '@fastify/ajv-compiler';
import { SerializerSelector, type SerializerFactory } from '@fastify/fast-json-stringify-compiler';

/** Compiled functions by options and schema, for the life of the process. */
const compiled = new Map<string, unknown>();

/** A route compiler that compiles a schema, under `scope` (the options), once per process. */
function once<R extends { schema?: unknown }, F>(scope: string, compile: (route: R) => F): (route: R) => F {
  return (route) => {
    const key = `${scope}\u0000${JSON.stringify(route.schema)}`;
    let found = compiled.get(key) as F | undefined;
    if (found === undefined) {
      found = compile(route);
      compiled.set(key, found);
    }
    return found;
  };
}

/** Validators: Fastify's Ajv compiler (one Ajv per options, as Fastify pools them), each schema once. */
const ajvFromPool = AjvCompiler();
const buildValidator = ((externalSchemas: unknown, options: unknown) =>
  once(
    `validator ${JSON.stringify([externalSchemas, options])}`,
    (ajvFromPool as (...args: unknown[]) => (route: { schema?: unknown }) => unknown)(externalSchemas, options),
  )) as unknown as ValidatorFactory;

/** Serializers: Fastify's fast-json-stringify compiler, each schema once. */
const fastJsonStringify = SerializerSelector();
const buildSerializer: SerializerFactory = (externalSchemas, options) =>
  once(`serializer ${JSON.stringify([externalSchemas, options])}`, fastJsonStringify(externalSchemas, options));

/** For Fastify's `schemaController` option. */
export const schemaCompilers = { compilersFactory: { buildValidator, buildSerializer } };
