// Saved telemetry searches through HTTP, on SQLite and PostgreSQL: a person saves, lists,
// replaces and deletes their own searches; a bad query is refused when saved; another person
// (or tenant) neither sees nor deletes them; a token nobody created owns none.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { databaseTargets } from '../helpers/databases.js';
import { apiClient, bearer, expectProblem, issueToken, signIn, type Session } from '../helpers/api.js';
import { apiSuite } from '../helpers/suite.js';

interface Saved {
  id: string;
  name: string;
  query: string;
  time_range?: string;
  columns?: string[];
  filters?: Record<string, unknown>;
}

for (const target of databaseTargets) {
  describe(`saved telemetry searches on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target);
    let ana: Session;
    let ben: Session;
    let outsider: Session;
    const csrf = (session: Session) => ({ 'x-csrf-token': session.csrf });

    before(async () => {
      ana = await signIn(suite.server, { tenant: suite.acme, role: 'analyst', email: 'ana@acme.test' });
      ben = await signIn(suite.server, { tenant: suite.acme, role: 'analyst', email: 'ben@acme.test' });
      outsider = await signIn(suite.server, { tenant: suite.globex, role: 'admin', email: 'eve@globex.test' });
    });

    test('save, list by name, save a name again to replace it, delete', async () => {
      const body = {
        name: 'Checkout 5xx',
        query: 'service:checkout AND http.status:>=500',
        time_range: '24h',
        columns: ['http.path', 'message'],
        filters: { 'kubernetes.namespace': 'prod' },
      };
      const saved = await ana.client.post<Saved>('/v1/telemetry/saved-searches', body, csrf(ana));
      assert.equal(saved.status, 201, JSON.stringify(saved.body));
      assert.match(saved.body.id, /^ss_/);
      assert.deepEqual(
        { ...saved.body, id: undefined, created_at: undefined, updated_at: undefined },
        { ...body, id: undefined, created_at: undefined, updated_at: undefined },
      );
      const other = await ana.client.post<Saved>(
        '/v1/telemetry/saved-searches',
        { name: 'Auth', query: 'auth*' },
        csrf(ana),
      );
      assert.equal(other.status, 201);
      const again = await ana.client.post<Saved>(
        '/v1/telemetry/saved-searches',
        { name: 'Checkout 5xx', query: 'service:checkout AND http.status:503' },
        csrf(ana),
      );
      assert.equal(again.body.id, saved.body.id, 'the same name is the same search');
      assert.equal(again.body.time_range, undefined, 'replaced as a whole');
      const list = await ana.client.get<{ saved_searches: Saved[] }>('/v1/telemetry/saved-searches');
      assert.deepEqual(
        list.body.saved_searches.map((search) => [search.name, search.query]),
        [
          ['Auth', 'auth*'],
          ['Checkout 5xx', 'service:checkout AND http.status:503'],
        ],
      );
      const deleted = await ana.client.request('DELETE', `/v1/telemetry/saved-searches/${other.body.id}`, {
        headers: csrf(ana),
      });
      assert.equal(deleted.status, 204);
      const after = await ana.client.get<{ saved_searches: Saved[] }>('/v1/telemetry/saved-searches');
      assert.deepEqual(
        after.body.saved_searches.map((search) => search.name),
        ['Checkout 5xx'],
      );
    });

    test('a query that cannot be read is refused with where; a blank name is refused', async () => {
      const bad = expectProblem(
        await ana.client.post('/v1/telemetry/saved-searches', { name: 'broken', query: 'a AND (' }, csrf(ana)),
        400,
        'invalid_query',
      );
      assert.equal(bad.position, 7);
      expectProblem(
        await ana.client.post('/v1/telemetry/saved-searches', { name: '   ', query: 'a' }, csrf(ana)),
        400,
        'invalid_request',
      );
    });

    test("another person's searches are neither listed nor deletable; a token nobody created owns none", async () => {
      const mine = await ana.client.post<Saved>(
        '/v1/telemetry/saved-searches',
        { name: 'Mine', query: 'x' },
        csrf(ana),
      );
      for (const session of [ben, outsider]) {
        const list = await session.client.get<{ saved_searches: Saved[] }>('/v1/telemetry/saved-searches');
        assert.equal(list.status, 200);
        assert.ok(!list.body.saved_searches.some((search) => search.id === mine.body.id));
        expectProblem(
          await session.client.request('DELETE', `/v1/telemetry/saved-searches/${mine.body.id}`, {
            headers: csrf(session),
          }),
          404,
          'not_found',
        );
      }
      const token = apiClient(
        suite.server,
        bearer((await issueToken(suite.server, suite.acme, ['telemetry:read'])).value),
      );
      expectProblem(await token.get('/v1/telemetry/saved-searches'), 403, 'session_required');
      const list = await ana.client.get<{ saved_searches: Saved[] }>('/v1/telemetry/saved-searches');
      assert.ok(
        list.body.saved_searches.some((search) => search.id === mine.body.id),
        'still there',
      );
    });
  });
}
