// Shutdown under load: on SIGTERM while senders are posting, the server stops taking requests,
// answers or closes those in flight, commits what it acknowledged and exits with code 0. Every
// record that got a 201 must then be in the store, and the store must pass its integrity check.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { databaseTargets } from '../helpers/databases.js';
import { freePort, stopChild, waitReady } from '../helpers/processes.js';
import { generateLoad, READY_TIMEOUT_MS, RECORDS_PER_REQUEST, spawnServer } from '../helpers/ingest-load.js';
import { openDatabase } from '../../src/storage/database.js';

for (const target of databaseTargets) {
  describe(`graceful shutdown on ${target.kind}`, { skip: target.skip }, () => {
    test(
      'SIGTERM mid-load: the server exits with 0 and every record that got a 201 is stored',
      { timeout: 180_000 },
      async () => {
        const database = await target.create();
        const port = await freePort();
        const server = spawnServer(database, port, 'info');
        let stop = false;
        try {
          await waitReady(server, `http://127.0.0.1:${port}/readyz`, READY_TIMEOUT_MS);
          const load = generateLoad(port, () => stop);
          await new Promise((resolve) => setTimeout(resolve, 2_000));

          server.process.kill('SIGTERM');
          const code = await server.exited;
          stop = true;
          const { acknowledged, failedAttempts } = await load;

          assert.equal(code, 0, `the server exited with ${code}:\n${server.stderr()}`);
          assert.match(server.stdout(), /"msg":"closed"/, 'the server logged its closing steps');
          assert.ok(acknowledged.size >= RECORDS_PER_REQUEST, `load was acknowledged (${acknowledged.size} records)`);
          assert.ok(failedAttempts > 0, 'senders were refused once the server stopped (SIGTERM came mid-load)');

          const opened = await openDatabase(database);
          try {
            const rows = await opened.db.selectFrom('telemetry_records').select('record').execute();
            const stored = new Set(rows.map((row) => String((JSON.parse(row.record) as { marker: unknown }).marker)));
            const lost = [...acknowledged].filter((marker) => !stored.has(marker));
            assert.equal(lost.length, 0, `${lost.length} of ${acknowledged.size} acknowledged records are missing`);
            if (opened.kind === 'sqlite') {
              const integrity = await sql<{ integrity_check: string }>`PRAGMA integrity_check`.execute(opened.db);
              assert.deepEqual(integrity.rows, [{ integrity_check: 'ok' }]);
            }
          } finally {
            await opened.close();
          }
        } finally {
          stop = true;
          await stopChild(server);
          await database.cleanup();
        }
      },
    );
  });
}
