// Property-based fuzzing of the whole /v1 API, driven by its own OpenAPI document: every
// operation gets path parameters, query strings, bodies and headers generated from its schemas
// and mutated past them, signed in with an all-permissions token and anonymously. No answer may
// be a 5xx (503, back-pressure, aside), and every refusal must be a problem body with a code.
// The seed is fixed and the runs bounded, so a failure reproduces and the suite stays quick; each
// database gets a seed of its own, so the two runs together try twice as many different requests.
// SIGHTLINE_FUZZ_RUNS sets the runs per operation for a deeper search (fast-check prints the seed
// and path of a failure, to replay it).
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { databaseTargets } from '../helpers/databases.js';
import { apiSuite } from '../helpers/suite.js';
import { apiClient, bearer, issueToken } from '../helpers/api.js';
import { schemaArbitrary, validArbitrary, wrongValue, type JsonSchema } from '../helpers/schema-arbitrary.js';

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  schema?: JsonSchema;
}

interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}

interface Document {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

const RUNS_PER_OPERATION = Number(process.env.SIGHTLINE_FUZZ_RUNS ?? 40);
const SEED = 20_261_126;

/** Content types a caller might send, right or wrong. */
const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/json; charset=latin1', 'application/xml', '') },
);

/** A header a caller might add, with a value that is wrong for it (printable ASCII, as HTTP allows). */
const oddHeader = fc.tuple(
  fc.constantFrom(
    'authorization',
    'sightline-tenant',
    'x-request-id',
    'accept',
    'x-csrf-token',
    'cookie',
    'x-forwarded-for',
  ),
  fc.oneof(
    fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength: 60 }),
    fc.constantFrom('Bearer ', 'Bearer slt_x', 'Basic !!!', 'Basic Og==', 'sl_session=x', '*/*', 'globex', '999.1.1.1'),
  ),
);

/** A body: usually valid, or valid but for one field, sometimes text that is not JSON at all. */
function bodyArbitrary(schema: JsonSchema | undefined, components: Record<string, JsonSchema>) {
  const valid = validArbitrary(schema ?? {}, components);
  const oneFieldWrong = fc
    .tuple(valid, fc.string({ maxLength: 12 }), wrongValue, fc.boolean())
    .map(([value, extra, wrong, replaceExisting]) => {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return wrong;
      const keys = Object.keys(value);
      const key = replaceExisting && keys.length > 0 ? (keys[extra.length % keys.length] ?? extra) : extra;
      return { ...value, [key]: wrong };
    });
  const json = fc
    .oneof({ weight: 2, arbitrary: valid }, { weight: 3, arbitrary: oneFieldWrong })
    .map((value) => JSON.stringify(value === undefined ? null : value));
  return fc.oneof(
    { weight: 8, arbitrary: json },
    { weight: 1, arbitrary: fc.constantFrom('{', '', '[]', '{"a":}', '\u0000', 'null', '1e999', '{"a":1e999}') },
    // Deep enough to overflow any recursive walk of the parsed value (written as text: building
    // it as an object would overflow the generator's own recursion first).
    { weight: 1, arbitrary: fc.constant(`${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`) },
  );
}

for (const [index, target] of databaseTargets.entries()) {
  describe(`API fuzzing on ${target.kind}`, { skip: target.skip }, () => {
    // Anonymous and forged calls count as failed attempts: a limit the fuzzer cannot reach keeps
    // every generated request going to its handler rather than to the 429 of the limiter.
    const suite = apiSuite(target, { authMaxFailures: '100000' });
    let token: string;
    let document: Document;
    before(async () => {
      token = (await issueToken(suite.server, suite.acme)).value;
      const response = await apiClient(suite.server, bearer(token)).get<Document>('/v1/openapi.json');
      assert.equal(response.status, 200);
      document = response.body;
    });

    test('no generated request to any operation gets a 5xx, and every refusal is a problem', async () => {
      const components = document.components?.schemas ?? {};
      let requests = 0;
      for (const [path, operations] of Object.entries(document.paths)) {
        for (const [method, operation] of Object.entries(operations)) {
          const parameters = operation.parameters ?? [];
          const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
          const queryParameters = parameters.filter((parameter) => parameter.in === 'query');
          // A request of the declared shape, with at most one thing wrong in it: a request wrong
          // in many places is refused at the first, and the handler behind it is never reached.
          const request = fc.record({
            path: fc.tuple(
              ...parameters
                .filter((parameter) => parameter.in === 'path')
                .map((parameter) =>
                  fc
                    .oneof(
                      { weight: 3, arbitrary: fc.constantFrom('1', 'obs_x', 'tok_x', 'acme') },
                      { weight: 1, arbitrary: schemaArbitrary(parameter.schema ?? { type: 'string' }, components) },
                    )
                    .map((value) => [parameter.name, String(value)] as const),
                ),
            ),
            query: fc.tuple(
              ...queryParameters.map((parameter) =>
                fc.option(
                  validArbitrary(parameter.schema ?? {}, components).map((value) => [parameter.name, value] as const),
                ),
              ),
            ),
            wrongQuery: fc.option(
              fc.tuple(
                queryParameters.length > 0
                  ? fc.constantFrom(...queryParameters.map((parameter) => parameter.name))
                  : fc.string({ maxLength: 8 }),
                wrongValue,
              ),
              { freq: 2 },
            ),
            body: bodySchema || method !== 'get' ? bodyArbitrary(bodySchema, components) : fc.constant(undefined),
            contentType,
            header: fc.option(oddHeader, { freq: 3 }),
            signedIn: fc.oneof(
              { weight: 5, arbitrary: fc.constant(true) },
              { weight: 1, arbitrary: fc.constant(false) },
            ),
          });
          await fc.assert(
            fc.asyncProperty(request, async (generated) => {
              let url = path;
              // A URL carries UTF-8: lone surrogates become U+FFFD, as any HTTP client would send them.
              for (const [name, value] of generated.path)
                url = url.replace(`{${name}}`, encodeURIComponent(Buffer.from(value, 'utf8').toString('utf8')));
              const query = new URLSearchParams();
              const asText = (value: unknown) =>
                typeof value === 'string' ? value : JSON.stringify(value === undefined ? null : value);
              for (const entry of generated.query) if (entry) query.set(entry[0], asText(entry[1]));
              if (generated.wrongQuery) query.set(generated.wrongQuery[0], asText(generated.wrongQuery[1]));
              const headers: Record<string, string> = generated.signedIn ? bearer(token) : {};
              if (generated.header) headers[generated.header[0]] = generated.header[1];
              if (generated.body !== undefined && generated.contentType !== '')
                headers['content-type'] = generated.contentType;
              const response = await fetch(`${suite.server.baseUrl}${url}?${query.toString()}`, {
                method: method.toUpperCase(),
                headers,
                ...(generated.body !== undefined && method !== 'get' ? { body: generated.body } : {}),
              });
              requests++;
              const text = await response.text();
              const name = `${method.toUpperCase()} ${path}`;
              assert.ok(response.status < 500 || response.status === 503, `${name}: ${response.status} ${text}`);
              if (response.status >= 400) {
                assert.match(response.headers.get('content-type') ?? '', /problem\+json/, `${name}: ${text}`);
                assert.equal(typeof (JSON.parse(text) as { code?: unknown }).code, 'string', `${name}: ${text}`);
              }
            }),
            { seed: SEED + index, numRuns: RUNS_PER_OPERATION, endOnFailure: true },
          );
        }
      }
      assert.ok(requests > 1_000, `only ${requests} requests were generated`);
    });
  });
}
