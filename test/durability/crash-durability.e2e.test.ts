// The durability promise: a 201 means the records survive anything, including SIGKILL. A load
// generator posts and retries (as a forwarder does) while the server is killed mid-load and
// restarted; afterwards every record that got a 201 must be stored, and the store must pass
// its integrity checks.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { databaseTargets } from '../helpers/databases.js';
import { freePort, stopChild, waitReady } from '../helpers/processes.js';
import { generateLoad, READY_TIMEOUT_MS, RECORDS_PER_REQUEST, SENDERS, spawnServer } from '../helpers/ingest-load.js';
import { openDatabase } from '../../src/storage/database.js';
import { catchUpSearchIndex } from '../../src/telemetry/search-index.js';
import { storagePorts } from '../../src/storage/ports/storage-ports.js';
import { sql } from 'kysely';

for (const target of databaseTargets) {
  describe(`crash durability on ${target.kind}`, { skip: target.skip }, () => {
    test(
      'SIGKILL mid-load loses no record that got a 201 and leaves the store intact',
      { timeout: 300_000 },
      async () => {
        const database = await target.create();
        const port = await freePort();
        let server = spawnServer(database, port);
        let stop = false;
        try {
          await waitReady(server, `http://127.0.0.1:${port}/readyz`, READY_TIMEOUT_MS);
          const load = generateLoad(port, () => stop);

          await new Promise((resolve) => setTimeout(resolve, 2_000));
          server.process.kill('SIGKILL');
          await server.exited;
          const stillRunning =
            (await Promise.race([
              load,
              new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 0)),
            ])) === undefined;
          assert.ok(stillRunning, 'the load generator was still running when the server was killed');

          server = spawnServer(database, port);
          await waitReady(server, `http://127.0.0.1:${port}/readyz`, READY_TIMEOUT_MS);
          await new Promise((resolve) => setTimeout(resolve, 1_500));
          stop = true;
          const { acknowledged, failedAttempts } = await load;
          await stopChild(server);

          assert.ok(
            acknowledged.size > RECORDS_PER_REQUEST * SENDERS,
            `load was acknowledged (${acknowledged.size} records)`,
          );
          assert.ok(failedAttempts > 0, 'some requests failed while the server was down (the kill hit mid-load)');

          const opened = await openDatabase(database);
          try {
            const rows = await opened.db.selectFrom('telemetry_records').select('record').execute();
            const stored = new Set(rows.map((row) => String((JSON.parse(row.record) as { marker: unknown }).marker)));
            const lost = [...acknowledged].filter((marker) => !stored.has(marker));
            assert.equal(lost.length, 0, `${lost.length} of ${acknowledged.size} acknowledged records are missing`);

            // The index follows the log; once caught up it must agree with the log exactly.
            await catchUpSearchIndex(storagePorts(opened).searchIndex);
            if (opened.kind === 'sqlite') {
              const integrity = await sql<{ integrity_check: string }>`PRAGMA integrity_check`.execute(opened.db);
              assert.deepEqual(integrity.rows, [{ integrity_check: 'ok' }]);
              // Throws if the full-text index disagrees with the record table.
              await sql`INSERT INTO telemetry_fts(telemetry_fts, rank) VALUES ('integrity-check', 1)`.execute(
                opened.db,
              );
            } else {
              const check = await sql<{ records: number; indexed: number }>`
              SELECT (SELECT count(*)::int FROM telemetry_records) AS records, (SELECT count(*)::int FROM telemetry_fts) AS indexed`.execute(
                opened.db,
              );
              assert.equal(check.rows[0]?.indexed, check.rows[0]?.records, 'every record is indexed exactly once');
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
