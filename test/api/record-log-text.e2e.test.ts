// What the collector acknowledges is stored byte for byte, on SQLite and PostgreSQL: JSON
// whitespace and escapes (\u0000, which PostgreSQL's jsonb refuses, among them) survive the
// record log's bulk insert, and requests from two tenants arriving together, which the log
// commits in shared groups, each keep their tenant.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { databaseTargets } from '../helpers/databases.js';
import { ingest } from '../helpers/api.js';
import { apiSuite } from '../helpers/suite.js';
import { appRecord } from '../helpers/factories.js';

for (const target of databaseTargets) {
  describe(`record log text on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target);

    /** The stored record texts holding `run`, with their tenant, in log order. */
    async function stored(run: string): Promise<{ tenant_id: number; record: string }[]> {
      const { db } = suite.server.sightline.database;
      const { rows } = await sql<{ tenant_id: number; record: string }>`
        SELECT tenant_id, record FROM telemetry_records WHERE record LIKE ${`%${run}%`} ORDER BY seq`.execute(db);
      return rows;
    }

    test('records are stored exactly as sent, whitespace and escapes included', async () => {
      const run = randomUUID();
      const lines = [
        `{"run":"${run}","message":"a\\u0000b","separator":"\\u001e","bell":"\\u0007"}`,
        `{ "run" : "${run}",\t"path": "C:\\\\Windows\\\\System32\\\\cmd.exe" ,"quote":"\\"quoted\\""  }`,
        `{"run":"${run}","user":"Zoë Ångström","emoji":"😀 \\ud83d\\ude00","lone":"\\udc00"}`,
        `{"run":"${run}","huge":1e140000,"comma":"a,b","braces":"{x}"}`,
      ];
      await ingest(suite.server, lines);
      assert.deepEqual(
        (await stored(run)).map((row) => row.record),
        lines,
      );
    });

    test('requests from two tenants sent together each keep their tenant', async () => {
      const run = randomUUID();
      const requests = Array.from({ length: 12 }, (_, i) => ({
        codeName: i % 2 === 0 ? 'acme' : 'globex',
        lines: Array.from({ length: 50 }, (_, n) => appRecord({ run, request: i, n })),
      }));
      await Promise.all(requests.map(({ codeName, lines }) => ingest(suite.server, lines, codeName)));
      const rows = await stored(run);
      assert.equal(rows.length, 12 * 50);
      const tenantOf = { acme: suite.acme.id, globex: suite.globex.id };
      for (const row of rows) {
        const { request } = JSON.parse(row.record) as { request: number };
        assert.equal(row.tenant_id, tenantOf[requests[request]!.codeName as 'acme' | 'globex'], row.record);
      }
    });
  });
}
