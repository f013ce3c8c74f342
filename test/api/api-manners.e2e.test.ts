// How the API answers a request it cannot serve as sent: a path that exists under other methods
// answers 405 with `Allow` (404 stays for paths that do not exist), and a request its schema
// refuses says in words which field, where, what was expected and what came — keeping the
// machine code `invalid_request` and the same findings as data in `errors`.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { databaseTargets } from '../helpers/databases.js';
import { apiSuite } from '../helpers/suite.js';
import { apiClient, bearer, expectProblem, issueToken, type ApiClient } from '../helpers/api.js';

interface FieldProblem {
  in: string;
  field: string;
  message: string;
}

for (const target of databaseTargets) {
  describe(`API manners on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target);
    let api: ApiClient;
    before(async () => {
      api = apiClient(suite.server, bearer((await issueToken(suite.server, suite.acme)).value));
    });

    test('a wrong method on an existing path is 405 with Allow; an unknown path stays 404', async () => {
      const wrong = await api.delete('/v1/cases/counts');
      const problem = expectProblem(wrong, 405, 'method_not_allowed');
      assert.equal(wrong.headers.get('allow'), 'GET, HEAD, PATCH');
      assert.deepEqual(problem.allowed_methods, ['GET', 'HEAD', 'PATCH']);
      assert.match(problem.detail, /\/v1\/cases\/counts does not take DELETE/);

      const tokens = await api.request('PUT', '/v1/tokens');
      expectProblem(tokens, 405, 'method_not_allowed');
      assert.equal(tokens.headers.get('allow'), 'GET, HEAD, POST');

      // A path with a parameter: the router's match, not a string comparison.
      const caseWrong = await api.request('PUT', '/v1/cases/case_0000');
      expectProblem(caseWrong, 405, 'method_not_allowed');
      assert.match(caseWrong.headers.get('allow') ?? '', /GET.*PATCH/);

      // Without credentials the answer is the same: which methods a path has is public (/openapi.json says it).
      const anonymous = await fetch(`${suite.server.baseUrl}/v1/cases/counts`, { method: 'DELETE' });
      assert.equal(anonymous.status, 405);

      expectProblem(await api.delete('/v1/no-such-thing'), 404, 'not_found');
      const collector = await fetch(`${suite.server.baseUrl}/log_sink`);
      assert.equal(collector.status, 405);
      assert.equal(collector.headers.get('allow'), 'POST');
    });

    test('a body field of the wrong type is named, with what was expected and what came', async () => {
      const response = await api.post('/v1/telemetry/search', { limit: 'many' });
      const problem = expectProblem(response, 400, 'invalid_request');
      assert.equal(problem.detail, 'the field limit in the body must be a whole number; got "many"');
      assert.deepEqual(problem.errors, [{ in: 'body', field: 'limit', message: 'must be a whole number; got "many"' }]);
    });

    test('a missing field, an unknown field and a query parameter out of range each say which and where', async () => {
      const missing = expectProblem(
        await api.post('/v1/tokens', { permissions: ['cases:read'] }),
        400,
        'invalid_request',
      );
      assert.equal(missing.detail, 'the field name in the body is required');

      const unknown = expectProblem(
        await api.post('/v1/tokens', { name: 'ci', permissions: ['cases:read'], expires: '30d' }),
        400,
        'invalid_request',
      );
      assert.match(
        unknown.detail,
        /^the field expires in the body is not a field this request takes \(it takes .*expires_at/,
      );

      const range = expectProblem(await api.get('/v1/observations?limit=0'), 400, 'invalid_request');
      assert.equal(range.detail, 'the query parameter limit must be at least 1; got 0');
      assert.deepEqual(range.errors, [{ in: 'query', field: 'limit', message: 'must be at least 1; got 0' }]);
    });

    test('a value outside a list of choices lists them once, and a nested field is named by its path', async () => {
      const problem = expectProblem(
        await api.post('/v1/tokens', { name: 'ci', permissions: ['cases:read', 'cases:delete'] }),
        400,
        'invalid_request',
      );
      assert.match(
        problem.detail,
        /^the field permissions\[1\] in the body must be one of cases:read, .*, all; got "cases:delete"$/,
      );
      assert.equal((problem.errors as FieldProblem[]).length, 1);
    });

    test('secrets are never echoed back in a validation message', async () => {
      const problem = expectProblem(
        await api.post('/v1/auth/login', { email: 'someone@example.com', password: ['hunter2-secret'] }),
        400,
        'invalid_request',
      );
      assert.match(problem.detail, /the field password in the body must be text/);
      assert.doesNotMatch(JSON.stringify(problem), /hunter2/);
    });
  });
}
