// The OpenAPI document is generated from the route schemas: it must validate as OpenAPI 3.1,
// cover every /v1 route the server registered, and document each operation fully (summary,
// description, an example, its error responses, its security).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { databaseTargets, type TestDatabase } from '../helpers/databases.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { apiClient, bearer, issueToken, seedTenant } from '../helpers/api.js';
import type { OpenApiDocument } from '../helpers/responses.js';

describe('OpenAPI document', () => {
  let database: TestDatabase;
  let server: TestServer;
  let document: OpenApiDocument;

  before(async () => {
    database = await databaseTargets[0]!.create();
    server = await startServer(database);
    const { value } = await issueToken(server, await seedTenant(server, 'acme'), ['cases:read']);
    const response = await apiClient(server, bearer(value)).get<OpenApiDocument>('/v1/openapi.json');
    assert.equal(response.status, 200);
    document = response.body;
  });
  after(async () => {
    await server.close();
    await database.cleanup();
  });

  test('validates as OpenAPI 3.1', async () => {
    assert.match(document.openapi, /^3\.1\./);
    const result = await new Validator().validate(document as never);
    assert.deepEqual(result.errors ?? [], []);
    assert.equal(result.valid, true);
  });

  test('every /v1 route the server registered appears in it, and nothing else', () => {
    const registered = server.sightline.server.apiRoutes
      .map(({ method, url }) => `${method} ${url.replace(/:([a-z_]+)/g, '{$1}')}`)
      .sort();
    const documented = Object.entries(document.paths)
      .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    assert.ok(registered.length >= 10, `expected the identity routes at least, got ${registered.join(', ')}`);
    assert.deepEqual(documented, registered);
  });

  test('every operation has a summary, a description, an example and its error responses', () => {
    // What needs no credentials (signing in, redeeming a one-time code) says so in its access.
    const publicOperations = new Set(
      server.sightline.server.apiRoutes
        .filter(({ access }) => access.scope === 'public')
        .map(({ method, url }) => `${method} ${url.replace(/:([a-z_]+)/g, '{$1}')}`),
    );
    assert.ok(publicOperations.has('POST /v1/auth/login'));
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const name = `${method.toUpperCase()} ${path}`;
        assert.ok(operation.summary, `${name} has no summary`);
        assert.ok((operation.description ?? '').length >= 20, `${name} has no real description`);
        const contents = [
          ...Object.values(operation.requestBody?.content ?? {}),
          ...Object.values(operation.responses).flatMap((response) => Object.values(response.content ?? {})),
        ];
        assert.ok(
          contents.some((content) => content.example !== undefined || content.examples !== undefined),
          `${name} has no example`,
        );
        const errors = Object.keys(operation.responses).filter((status) => /^[45]/.test(status));
        assert.ok(
          errors.some((status) => status.startsWith('4')) && errors.some((status) => status.startsWith('5')),
          `${name} documents no 4xx and 5xx`,
        );
        for (const [status, response] of Object.entries(operation.responses)) {
          assert.ok(response.description, `${name} ${status} has no description`);
          if (/^[45]/.test(status))
            assert.ok(
              response.content?.['application/problem+json'],
              `${name} ${status} is not a problem+json response`,
            );
        }
        if (publicOperations.has(name)) {
          assert.equal(operation.security, undefined, `${name} is public and asks for no credentials`);
        } else {
          assert.ok(operation.security?.length, `${name} declares no security`);
          assert.ok(
            operation.responses['401'] && operation.responses['403'] && operation.responses['429'],
            `${name} lacks 401/403/429`,
          );
        }
      }
    }
  });

  test('offers the Personal Access Token scheme (bearer) and Basic with the token as password', () => {
    assert.deepEqual(Object.keys(document.components.securitySchemes).sort(), [
      'PersonalAccessToken',
      'SessionCookie',
      'TokenAsBasicPassword',
    ]);
    assert.match(JSON.stringify(document.components.securitySchemes.PersonalAccessToken), /"scheme":"bearer"/);
  });

  test('is served to token holders only', async () => {
    const response = await apiClient(server).get('/v1/openapi.json');
    assert.equal(response.status, 401);
  });
});
