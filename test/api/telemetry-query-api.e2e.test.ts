// The telemetry query language through HTTP, on SQLite and PostgreSQL: field:value on nested
// paths, phrases, wildcards, AND/OR/NOT with parentheses, ranges, _exists_ and bare words;
// bad queries answered 400 with the position and what was expected; and injection attempts
// through the language, which match nothing or are refused, never reach the SQL as text.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { databaseTargets } from '../helpers/databases.js';
import type { TestServer } from '../helpers/server.js';
import { expectProblem, ingest, type ApiClient } from '../helpers/api.js';
import { apiSuite } from '../helpers/suite.js';
import { searchAll, telemetryReaders } from '../helpers/telemetry.js';

/** Forty records shaped like a web service's logs; `i` is 1…40. */
function serviceRecords(run: string): Record<string, unknown>[] {
  return Array.from({ length: 40 }, (_, index) => {
    const i = index + 1;
    return {
      run,
      i,
      message: `request ${i} done`,
      http: { status: i % 4 === 0 ? 503 : 200, path: `/api/item/${i}`, bytes: i * 100 },
      kubernetes: { namespace: i % 5 === 0 ? 'dev' : 'prod' },
      ...(i % 10 === 0 ? { user: { name: i === 10 ? 'admin' : 'ad_min' } } : {}),
      ...(i === 7 ? { note: "it's 100% done; a*b", code: '503' } : {}),
    };
  });
}

for (const target of databaseTargets) {
  describe(`telemetry query language on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target);
    let server: TestServer;
    let reader: ApiClient;
    const run = randomUUID();

    /** The `i` of every record of this run the query matches, in order. */
    async function matching(query: string): Promise<number[]> {
      const found = (await searchAll(reader, { query: `run:${run} AND (${query})`, limit: 1000 })).records;
      return found.map((record) => record.record.i as number).sort((a, b) => a - b);
    }
    const where = (test: (i: number) => boolean) => Array.from({ length: 40 }, (_, k) => k + 1).filter(test);

    before(async () => {
      ({ server } = suite);
      ({ reader } = await telemetryReaders(suite));
      await ingest(server, serviceRecords(run));
    });

    test('field:value on nested paths, AND, OR, NOT and parentheses', async () => {
      assert.deepEqual(
        await matching('kubernetes.namespace:dev'),
        where((i) => i % 5 === 0),
      );
      assert.deepEqual(
        await matching('http.status:>=500 AND kubernetes.namespace:prod'),
        where((i) => i % 4 === 0 && i % 5 !== 0),
      );
      assert.deepEqual(
        await matching('NOT (kubernetes.namespace:prod OR http.status:503)'),
        where((i) => i % 5 === 0 && i % 4 !== 0),
      );
      // Adjacent terms must all hold; AND binds tighter than OR.
      assert.deepEqual(await matching('kubernetes.namespace:dev http.status:503'), [20, 40]);
      assert.deepEqual(await matching('i:1 OR i:2 AND http.status:503'), [1]);
      assert.deepEqual(await matching('(i:1 OR i:4) AND http.status:503'), [4]);
      // An unquoted number matches the number and the string; a quoted value only the string.
      assert.deepEqual(await matching('code:503'), [7]);
      assert.equal((await matching('http.status:"503"')).length, 0);
      // NOT holds for records without the field.
      assert.equal((await matching('NOT user.name:admin')).length, 39);
    });

    test('ranges: comparisons, [from TO to], exclusive and open bounds; numbers as numbers', async () => {
      assert.deepEqual(await matching('http.bytes:>3800'), [39, 40]);
      assert.deepEqual(await matching('http.bytes:<=200'), [1, 2]);
      assert.deepEqual(await matching('http.bytes:[1000 TO 1200]'), [10, 11, 12]);
      assert.deepEqual(await matching('http.bytes:{1000 TO 1200}'), [11]);
      assert.deepEqual(await matching('i:[38 TO *]'), [38, 39, 40]);
      // Text bounds compare text: only string values, byte-wise.
      assert.deepEqual(await matching('http.path:["/api/item/38" TO "/api/item/4"]'), [4, 38, 39]);
    });

    test('_exists_, wildcards in values, phrases, prefixes and bare words', async () => {
      assert.deepEqual(await matching('_exists_:user.name'), [10, 20, 30, 40]);
      assert.deepEqual(await matching('user.name:ad*'), [10, 20, 30, 40]);
      assert.deepEqual(await matching('user.name:ad?min'), [20, 30, 40]);
      // `_` and `%` are not wildcards; `\*` is a literal star.
      assert.deepEqual(await matching('user.name:ad_*'), [20, 30, 40]);
      assert.deepEqual(await matching('note:*100%*'), [7]);
      assert.deepEqual(await matching('note:*a\\*b'), [7]);
      assert.deepEqual(await matching('note:*a\\*c'), []);
      assert.deepEqual(
        await matching('http.path:/api/item/1?'),
        where((i) => i >= 10 && i <= 19),
      );
      assert.deepEqual(await matching('"request 7 done"'), [7]);
      // Bare words: each must occur, anywhere, in any case.
      assert.deepEqual(await matching('DONE 7 request'), [7]);
      assert.deepEqual(await matching('"done 7"'), []);
      assert.deepEqual(await matching('requ* 33'), [33]);
      assert.deepEqual(await matching('NOT request'), []);
    });

    test('equality is typed: true is not 1, an object is not its JSON text, 503.0 is 503', async () => {
      const typed = randomUUID();
      await ingest(server, [
        `{"typed":"${typed}","k":1,"v":true}`,
        `{"typed":"${typed}","k":2,"v":1}`,
        `{"typed":"${typed}","k":3,"v":503.0}`,
        `{"typed":"${typed}","k":4,"v":"503"}`,
        `{"typed":"${typed}","k":5,"v":{"a":1}}`,
        `{"typed":"${typed}","k":6,"v":"{\\"a\\":1}"}`,
        `{"typed":"${typed}","k":7,"v":0}`,
        `{"typed":"${typed}","k":8,"v":false}`,
      ]);
      const keys = async (query: string, filters?: Record<string, unknown>) => {
        const found = (await searchAll(reader, { query: `typed:${typed} AND (${query})`, limit: 100, filters }))
          .records;
        return found.map((record) => record.record.k as number).sort((a, b) => a - b);
      };
      assert.deepEqual(await keys('v:1'), [2]);
      assert.deepEqual(await keys('v:true'), [1]);
      assert.deepEqual(await keys('v:0'), [7]);
      assert.deepEqual(await keys('v:false'), [8]);
      assert.deepEqual(await keys('v:503'), [3, 4]);
      assert.deepEqual(await keys('v:"503"'), [4]);
      assert.deepEqual(await keys('v:"{\\"a\\":1}"'), [6]);
      assert.deepEqual(await keys('_exists_:v', { v: 1 }), [2]);
      assert.deepEqual(await keys('_exists_:v', { v: true }), [1]);
      assert.deepEqual(await keys('_exists_:v', { v: 503 }), [3]);
      assert.deepEqual(await keys('_exists_:v', { v: '{"a":1}' }), [6]);
    });

    test('equality finds a value however the record writes it: escapes, exponents, trailing zeros', async () => {
      const written = randomUUID();
      await ingest(server, [
        `{"written":"${written}","k":1,"host":"web\\u002d01","n":1}`,
        `{"written":"${written}","k":2,"host":"web\\/01","n":5.03e2}`,
        `{"written":"${written}","k":3,"host":"web-01","n":50.3e1}`,
        `{"written":"${written}","k":4,"host":"web-011","n":5030e-1}`,
        `{"written":"${written}","k":5,"host":"Web-01","n":0.0503e4}`,
        `{"written":"${written}","k":6,"n":503.000,"b" : true}`,
        `{"written":"${written}","k":7,"n":5031,"x":-1.25e-3}`,
        `{"written":"${written}","k":8,"n":"5.03","x":-0.00125,"b":"true"}`,
        // Written plainly (no escape, no exponent): PostgreSQL's prefilter takes one substring.
        `{"written":"${written}","k":9,"path":"/var/log/a","n":5.030,"x":-0.001250}`,
      ]);
      const keys = async (query: string, filters?: Record<string, unknown>) => {
        const found = (await searchAll(reader, { query: `written:${written} AND (${query})`, limit: 100, filters }))
          .records;
        return found.map((record) => record.record.k as number).sort((a, b) => a - b);
      };
      assert.deepEqual(await keys('host:web-01'), [1, 3]);
      assert.deepEqual(await keys('host:"web/01"'), [2]);
      assert.deepEqual(await keys('_exists_:k', { host: 'web-01' }), [1, 3]);
      assert.deepEqual(await keys('n:503'), [2, 3, 4, 5, 6]);
      assert.deepEqual(await keys('_exists_:k', { n: 503 }), [2, 3, 4, 5, 6]);
      assert.deepEqual(await keys('x:-0.00125'), [7, 8, 9]);
      assert.deepEqual(await keys('n:5.03'), [8, 9]);
      assert.deepEqual(await keys('path:"/var/log/a"'), [9]);
      assert.deepEqual(await keys('b:true'), [6, 8]);
      assert.deepEqual(await keys('_exists_:k', { b: true }), [6]);
      assert.deepEqual(await keys('host:web-01 OR n:5031'), [1, 3, 7]);
      assert.deepEqual(await keys('NOT host:web-01'), [2, 4, 5, 6, 7, 8, 9]);
      const histogram = await reader.post<{ total: number }>('/v1/telemetry/histogram', {
        since: new Date(Date.now() - 3_600_000).toISOString(),
        query: `written:${written} AND n:503`,
      });
      assert.equal(histogram.body.total, 5);
    });

    test('the histogram counts what the query matches', async () => {
      const since = new Date(Date.now() - 3_600_000).toISOString();
      const count = async (query: string) => {
        const response = await reader.post<{ total: number }>('/v1/telemetry/histogram', {
          since,
          query: `run:${run} AND (${query})`,
        });
        assert.equal(response.status, 200, JSON.stringify(response.body));
        return response.body.total;
      };
      assert.equal(await count('kubernetes.namespace:dev'), 8);
      assert.equal(await count('NOT (kubernetes.namespace:prod OR http.status:503)'), 6);
      assert.equal(await count('"request 7 done"'), 1);
    });

    test('a query that cannot be read is 400 invalid_query with the position and what was expected', async () => {
      const bad = expectProblem(
        await reader.post('/v1/telemetry/search', { query: 'http.status:>= AND (', limit: 10 }),
        400,
        'invalid_query',
      );
      assert.equal(bad.position, 15);
      assert.equal(bad.column, 16);
      assert.deepEqual(bad.expected, ['a number or a value']);
      assert.match(bad.detail, /position 15/);
      const cases: [string, number][] = [
        ['(a OR b', 7],
        ['a AND', 5],
        ['status:', 7],
        ['a OR OR b', 5],
        ['"unclosed', 9],
        ['*leading', 0],
        ['x:[1 TO', 7],
        ['x:[* TO *]', 0],
      ];
      for (const [query, position] of cases) {
        const problem = expectProblem(await reader.post('/v1/telemetry/search', { query }), 400, 'invalid_query');
        assert.equal(problem.position, position, `${query}: ${problem.detail}`);
      }
      // The same language and errors on every telemetry endpoint.
      for (const path of ['/v1/telemetry/export', '/v1/telemetry/tail']) {
        expectProblem(await reader.post(path, { query: 'a AND' }), 400, 'invalid_query');
      }
      expectProblem(
        await reader.post('/v1/telemetry/histogram', { since: '2026-01-01T00:00:00Z', query: '(' }),
        400,
        'invalid_query',
      );
    });

    test('limits: length, nesting depth and number of terms are enforced', async () => {
      const tooLong = await reader.post('/v1/telemetry/search', { query: 'a '.repeat(600) });
      assert.equal(tooLong.status, 400);
      const deep = `${'('.repeat(14)}a${')'.repeat(14)}`;
      const nested = expectProblem(await reader.post('/v1/telemetry/search', { query: deep }), 400, 'invalid_query');
      assert.match(nested.detail, /deeper than 12/);
      const many = Array.from({ length: 33 }, (_, k) => `w${k}`).join(' OR ');
      const terms = expectProblem(await reader.post('/v1/telemetry/search', { query: many }), 400, 'invalid_query');
      assert.match(terms.detail, /more than 32 terms/);
    });

    test('injection attempts through the language match nothing or are refused, and change nothing', async () => {
      const attempts = [
        `message:"x' OR '1'='1"`,
        `message:x'\\)\\ OR\\ 1=1\\ --`,
        `"'; DROP TABLE telemetry_records; --"`,
        `note:"%' OR 1=1 --"`,
        `i:[1 TO "1) OR (1=1"]`,
        `http.status:>"0 OR 1=1"`,
        `run:*' OR '1'='1`,
        `message:"\\"); DELETE FROM telemetry_records; --"`,
      ];
      for (const query of attempts) {
        assert.deepEqual(await matching(query), [], query);
      }
      for (const query of [`"http.status":1`, `http.'status':1`, `a:b) OR (1=1`, `$(a):1 OR x:1;`]) {
        const response = await reader.post('/v1/telemetry/search', { query: `run:${run} AND (${query})` });
        if (response.status === 200) assert.equal((response.body as { records: unknown[] }).records.length, 0, query);
        else expectProblem(response, 400, 'invalid_query');
      }
      assert.equal((await matching('request')).length, 40, 'every record is still there');
    });
  });
}
