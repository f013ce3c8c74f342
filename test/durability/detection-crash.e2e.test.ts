// Crash safety of the detection thread: its output commits with its cursor, so a SIGKILL in the
// middle of a backlog neither loses an observation nor doubles one. Thousands of records (some
// of them attacks) are stored, the server is killed while detection works through them and
// restarted; then every attack record has exactly one observation per rule, and every
// process record exactly one normalised row.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { sql } from 'kysely';
import { databaseTargets, type TestDatabase } from '../helpers/databases.js';
import { READY_TIMEOUT_MS } from '../helpers/ingest-load.js';
import { freePort, spawnSightline, stopChild, waitReady, type Child } from '../helpers/processes.js';
import { appRecord, ndjson, webAccessRecord } from '../helpers/factories.js';
import { openDatabase } from '../../src/storage/database.js';

const BATCHES = 100;
const PER_BATCH = 500;
/**
 * Records per detection transaction while the kill is aimed: small, so that the backlog takes a
 * thousand commits and the kill lands between them however loaded the machine is (with the
 * default of 1,000 the whole backlog could clear between two polls of a busy test runner).
 */
const KILL_CHUNK = 50;

function startServer(database: TestDatabase, port: number, chunk?: number): Child {
  const storage = ['--data', database.dataDir, ...(database.databaseUrl ? ['--database', database.databaseUrl] : [])];
  const tuning = chunk === undefined ? [] : ['--detection-chunk', String(chunk)];
  return spawnSightline(['serve', ...storage, '--port', String(port), '--log-level', 'warn', ...tuning]);
}

function request(port: number, method: string, path: string, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path, method, headers: { 'content-type': 'application/x-ndjson' }, agent: false },
      (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function lag(port: number): Promise<number> {
  const ready = await request(port, 'GET', '/readyz');
  // A not-ready answer reports no lag (0 when the database check fails): it must not pass for
  // "detection has finished".
  assert.equal(ready.status, 200, `readyz: ${ready.text}`);
  const lagRecords = (JSON.parse(ready.text) as { detection_lag_records: number }).detection_lag_records;
  assert.equal(typeof lagRecords, 'number', `readyz: ${ready.text}`);
  return lagRecords;
}

/** One batch: mostly application records, every tenth a SQL injection, every 25th a process start. */
function batch(): string {
  const records = Array.from({ length: PER_BATCH }, (_, i) => {
    if (i % 10 === 0)
      return webAccessRecord({
        request: `GET /item?id=${i}'%20UNION%20SELECT%20password%20FROM%20users-- HTTP/1.1`,
        kind: 'attack',
      });
    if (i % 25 === 1) {
      return {
        type: 'process',
        timestamp: new Date().toISOString(),
        host: 'web-01',
        os: 'linux',
        process: {
          name: 'curl',
          pid: 1000 + i,
          executable: '/usr/bin/curl',
          command_line: 'curl -s https://example.org/health',
        },
        parent: { name: 'cron', pid: 1, executable: '/usr/sbin/cron', command_line: 'cron' },
      };
    }
    return appRecord();
  });
  return ndjson(records);
}

for (const target of databaseTargets) {
  describe(`detection crash safety on ${target.kind}`, { skip: target.skip }, () => {
    test(
      'SIGKILL while detection works through a backlog loses and doubles nothing',
      { timeout: 400_000 },
      async () => {
        const database = await target.create();
        const port = await freePort();
        // Detection off while the backlog is stored, so that the kill lands in the middle of it.
        const storage = [
          '--data',
          database.dataDir,
          ...(database.databaseUrl ? ['--database', database.databaseUrl] : []),
        ];
        let server = spawnSightline([
          'serve',
          ...storage,
          '--port',
          String(port),
          '--log-level',
          'warn',
          '--detection',
          'off',
        ]);
        try {
          await waitReady(server, `http://127.0.0.1:${port}/readyz`, READY_TIMEOUT_MS);
          for (let i = 0; i < BATCHES; i++)
            assert.equal((await request(port, 'POST', '/log_sink', batch())).status, 201);
          await stopChild(server);

          server = startServer(database, port, KILL_CHUNK);
          await waitReady(server, `http://127.0.0.1:${port}/readyz`, READY_TIMEOUT_MS);
          const total = BATCHES * PER_BATCH;
          // Kill as soon as detection has committed its first chunk, so that some of the backlog is
          // done and most of it is not.
          let behind = await lag(port);
          while (behind >= total) behind = await lag(port);
          assert.ok(behind > 0, 'the kill must land before detection has finished');
          server.process.kill('SIGKILL');
          await server.exited;

          server = startServer(database, port);
          await waitReady(server, `http://127.0.0.1:${port}/readyz`, READY_TIMEOUT_MS);
          const deadline = Date.now() + 120_000;
          while ((await lag(port)) > 0) {
            assert.ok(Date.now() < deadline, 'detection did not catch up after the restart');
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
          await stopChild(server);

          const check = await openDatabase(database);
          try {
            // Sequences and counts are bigints: numbers from SQLite, strings from PostgreSQL.
            const attacks = await sql<{
              seq: number | string;
            }>`SELECT seq FROM telemetry_records WHERE record LIKE ${'%"kind":"attack"%'}`.execute(check.db);
            assert.equal(attacks.rows.length, total / 10);
            const observations = await sql<{
              rule_id: string;
              record_seqs: string;
            }>`SELECT rule_id, record_seqs FROM observations WHERE rule_type = 'detection'`.execute(check.db);
            const perRecord = new Map<number, Set<string>>();
            const pairs = new Set<string>();
            for (const row of observations.rows) {
              const seq = (JSON.parse(row.record_seqs) as number[])[0]!;
              const pair = `${row.rule_id}:${seq}`;
              assert.ok(!pairs.has(pair), `observation doubled: ${pair}`);
              pairs.add(pair);
              perRecord.set(seq, (perRecord.get(seq) ?? new Set()).add(row.rule_id));
            }
            const missed = attacks.rows.filter((row) => !perRecord.has(Number(row.seq)));
            assert.deepEqual(missed, [], `${missed.length} attack records have no observation`);
            const processRows = await sql<{
              n: number | string;
              distinct_seqs: number | string;
            }>`SELECT count(*) AS n, count(DISTINCT record_seq) AS distinct_seqs FROM endpoint_process_events`.execute(
              check.db,
            );
            assert.equal(Number(processRows.rows[0]!.n), BATCHES * 20);
            assert.equal(Number(processRows.rows[0]!.distinct_seqs), BATCHES * 20);
          } finally {
            await check.close();
          }
        } finally {
          await stopChild(server);
          await database.cleanup();
        }
      },
    );
  });
}
