// The recommended syslog-ng configuration, exactly as printed (only its paths point at the
// test's directories), under the two conditions that lost data before: 100,000 lines written
// in one burst, and the same while Sightline is killed with SIGKILL twice and restarted. Every
// line must be stored, unchanged; duplicates are allowed (delivery is at least once) and
// reported, loss is not.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { tempDir } from '../helpers/databases.js';
import { freePort, spawnSightline, stopChild, waitReady, type Child } from '../helpers/processes.js';
import { syslogNgConfig } from '../../src/collector/forwarders/forwarder-configs.js';
import { startSyslogNg, syslogNgAvailable } from '../helpers/syslog-ng.js';

const available = syslogNgAvailable('the forwarder loss tests');

const LINES = 100_000;

/** The application log line number n: a JSON object a forwarder must deliver unchanged. */
const line = (n: number) =>
  JSON.stringify({ marker: n, level: n % 7 === 0 ? 'error' : 'info', message: `order ${n} paid`, user: `u${n % 97}` });

function startSightline(dataDir: string, port: number): Child {
  return spawnSightline([
    'serve',
    '--data',
    dataDir,
    '--port',
    String(port),
    '--detection',
    'off',
    '--log-level',
    'warn',
  ]);
}

/** The printed configuration, pointed at the test's log files, server and state directory. */
function startPrintedSyslogNg(dir: string, logs: string, port: number) {
  const state = path.join(dir, 'syslog-ng-state');
  const printed = syslogNgConfig(`http://demo-collector.localhost:${port}`, `${logs}/*.log`, state).files[0]?.text;
  assert.ok(printed);
  return startSyslogNg(printed, state);
}

/** Stored lines by marker, from the database file (a second reader; WAL lets it read alongside). */
function storedLines(dataDir: string): { total: number; byMarker: Map<number, string> } {
  const db = new SQLite(path.join(dataDir, 'sightline.db'), { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare('SELECT record FROM telemetry_records').all() as { record: string }[];
    const byMarker = new Map<number, string>();
    for (const { record } of rows) byMarker.set((JSON.parse(record) as { marker: number }).marker, record);
    return { total: rows.length, byMarker };
  } finally {
    db.close();
  }
}

async function waitFor(condition: () => boolean, timeoutMs: number, what: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting: ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function run(restarts: number): Promise<void> {
  const dir = tempDir('sightline-syslog-ng-loss-');
  const dataDir = path.join(dir, 'data');
  const logs = path.join(dir, 'logs');
  fs.mkdirSync(logs);
  const port = await freePort();
  let server = startSightline(dataDir, port);
  await waitReady(server, `http://127.0.0.1:${port}/readyz`, 60_000);
  const forwarder = startPrintedSyslogNg(dir, logs, port);
  let stored = { total: 0, byMarker: new Map<number, string>() };
  const progress = () =>
    `${stored.byMarker.size} of ${LINES} lines stored; syslog-ng: ${forwarder.stderr().slice(-600)}`;
  try {
    const text = Array.from({ length: LINES }, (_, n) => `${line(n)}\n`).join('');
    // The burst: every line in one write.
    fs.writeFileSync(path.join(logs, 'app.log'), text);
    for (let kill = 1; kill <= restarts; kill++) {
      // Mid-stream: once a fair share of the lines is in, SIGKILL, and back a second later.
      const share = (kill * LINES) / (restarts + 2);
      await waitFor(() => (stored = storedLines(dataDir)).byMarker.size >= share, 120_000, progress);
      server.process.kill('SIGKILL');
      await server.exited;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      server = startSightline(dataDir, port);
      await waitReady(server, `http://127.0.0.1:${port}/readyz`, 60_000);
    }
    await waitFor(() => (stored = storedLines(dataDir)).byMarker.size >= LINES, 180_000, progress);
    for (let n = 0; n < LINES; n++) {
      const record = stored.byMarker.get(n);
      assert.ok(record !== undefined, `line ${n} was lost`);
      assert.deepEqual(JSON.parse(record), JSON.parse(line(n)), `line ${n} arrived changed`);
    }
    const duplicates = stored.total - stored.byMarker.size;
    console.log(
      `syslog-ng, ${restarts} restart(s): ${LINES} lines, 0 lost, ${duplicates} duplicate(s) (at-least-once delivery)`,
    );
  } finally {
    forwarder.process.kill('SIGTERM');
    await new Promise((resolve) => forwarder.process.once('exit', resolve));
    await stopChild(server);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('the printed syslog-ng configuration loses nothing', { skip: !available && 'syslog-ng not installed' }, () => {
  test('100,000 lines written in a burst all arrive, unchanged', { timeout: 240_000 }, () => run(0));
  test('the same with Sightline killed twice (SIGKILL) and restarted mid-stream', { timeout: 300_000 }, () => run(2));
});
