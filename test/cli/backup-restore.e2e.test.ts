// Backup and restore under load. Embedded: `sightline backup` runs while senders keep posting,
// `sightline restore` puts the copy into a fresh data directory, and a server started there
// knows every record acknowledged before the backup began, the case and the token. PostgreSQL:
// the pg_dump / pg_restore commands docs/operations.md documents, taken under the same load.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { databaseTargets, tempDir, type TestDatabase } from '../helpers/databases.js';
import { runCli } from '../helpers/cli.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { apiClient, bearer, issueToken, seedTenant, signIn } from '../helpers/api.js';
import { appRecord, ndjson } from '../helpers/factories.js';
import { closeOpened } from '../helpers/suite.js';
import { searchAll } from '../helpers/telemetry.js';
import { dropSchema } from '../helpers/postgres.js';
import { allPermissions } from '../../src/identity/permissions.js';

const run = promisify(execFile);
const SENDERS = 4;
const BATCH = 100;

interface Load {
  /** Markers of every record that got a 201, with when the 201 arrived. */
  acknowledged: Map<string, number>;
  stop(): Promise<void>;
}

/** Senders posting fresh batches to acme's collector until stopped. */
function startLoad(server: TestServer): Load {
  const acknowledged = new Map<string, number>();
  let stopping = false;
  const senders = Array.from({ length: SENDERS }, async () => {
    while (!stopping) {
      const records = Array.from({ length: BATCH }, () => appRecord());
      const response = await server.post(ndjson(records), {
        'content-type': 'application/x-ndjson',
        host: 'acme-collector.localhost',
      });
      await response.arrayBuffer();
      const at = Date.now();
      if (response.status === 201) for (const record of records) acknowledged.set(record.marker as string, at);
    }
  });
  return {
    acknowledged,
    stop: async () => {
      stopping = true;
      await Promise.all(senders);
    },
  };
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

interface Seeded {
  token: string;
  caseId: string;
}

/** A token and a case (from an observation the tenant writes) in acme. */
async function seedCaseAndToken(server: TestServer, kind: string): Promise<Seeded> {
  const acme = await seedTenant(server, 'acme');
  const operator = await signIn(server, { tenant: null, role: 'operator', email: `op-${kind}@platform.example` });
  const approved = await operator.client.patch(
    '/v1/tenants/acme',
    { observation_write_approved: true },
    { 'sightline-tenant': 'acme', 'x-csrf-token': operator.csrf },
  );
  assert.equal(approved.status, 200, JSON.stringify(approved.body));
  const { value: token } = await issueToken(server, acme, allPermissions, { name: 'kept by the backup' });
  const client = apiClient(server, bearer(token));
  const observed = await client.post('/v1/observations', {
    external_id: 'backup-1',
    title: 'Encoded PowerShell on the backup host',
    level: 'high',
    techniques: ['T1059'],
    first_time: new Date().toISOString(),
    host: 'backup-host-1',
  });
  assert.equal(observed.status, 201, JSON.stringify(observed.body));
  const found = await client.post<{ cases: { id: string }[] }>('/v1/cases', { text: 'backup-host-1' });
  assert.equal(found.body.cases.length, 1, JSON.stringify(found.body));
  return { token, caseId: found.body.cases[0]!.id };
}

/** On the (restored) server: the token works, the case is there, and which markers are stored. */
async function checkRestored(server: TestServer, seeded: Seeded, acknowledged: string[]): Promise<void> {
  const client = apiClient(server, bearer(seeded.token));
  const caseAnswer = await client.get<{ id: string }>(`/v1/cases/${seeded.caseId}`);
  assert.equal(
    caseAnswer.status,
    200,
    `the case is restored and the token authenticates: ${JSON.stringify(caseAnswer.body)}`,
  );
  const { records } = await searchAll(client, { limit: 1000 });
  const stored = new Set(records.map((item) => (item.record as { marker?: string }).marker));
  const missing = acknowledged.filter((marker) => !stored.has(marker));
  assert.deepEqual(missing.slice(0, 5), [], `${missing.length} of ${acknowledged.length} acknowledged records missing`);
}

const sqlite = databaseTargets.find((target) => target.kind === 'sqlite')!;
const postgres = databaseTargets.find((target) => target.kind === 'postgres')!;

describe('sightline backup and restore on sqlite', () => {
  let database: TestDatabase;
  let server: TestServer | undefined;
  let restored: TestServer | undefined;
  const dirs: string[] = [];
  const fresh = (prefix: string) => {
    const dir = path.join(tempDir(prefix), 'data');
    dirs.push(path.dirname(dir));
    return dir;
  };

  before(async () => {
    database = await sqlite.create();
    server = await startServer(database);
  });
  after(async () => {
    await closeOpened(restored, server, database);
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('an online backup under ingest load restores every acknowledged record, the case and the token', async () => {
    const seeded = await seedCaseAndToken(server!, 'sqlite');
    fs.mkdirSync(path.join(database.dataDir, 'ai-monitoring'), { recursive: true });
    fs.writeFileSync(path.join(database.dataDir, 'ai-monitoring', 'feedback-2026-11-26.ndjson'), '{"kept":true}\n');
    const load = startLoad(server!);
    await waitFor(() => load.acknowledged.size >= 2_000, '2000 acknowledged records');
    const backupDir = fresh('sightline-backup-');
    const started = Date.now();
    const backup = await runCli(['backup', '--data', database.dataDir, '--to', backupDir]);
    const before = [...load.acknowledged].filter(([, at]) => at < started).map(([marker]) => marker);
    await waitFor(() => load.acknowledged.size >= before.length + 500, 'ingest continuing after the backup');
    await load.stop();
    assert.equal(backup.code, 0, backup.stderr);
    assert.match(backup.stdout, /written to .*: 2 tenant\(s\), \d+ telemetry record\(s\)/);

    const dataDir = fresh('sightline-restored-');
    const restore = await runCli(['restore', '--from', backupDir, '--data', dataDir]);
    assert.equal(restore.code, 0, restore.stderr);
    assert.equal(
      fs.readFileSync(path.join(dataDir, 'ai-monitoring', 'feedback-2026-11-26.ndjson'), 'utf8'),
      '{"kept":true}\n',
      'the data directory’s other files come back too',
    );
    await server!.close();
    server = undefined;
    restored = await startServer({ kind: 'sqlite', dataDir, databaseUrl: '', cleanup: () => Promise.resolve() });
    await checkRestored(restored, seeded, before);
  });

  test('restore refuses a non-empty data directory unless forced, and a damaged backup', async () => {
    const backupDir = fresh('sightline-backup-');
    const source = fresh('sightline-source-');
    fs.mkdirSync(source, { recursive: true });
    const created = await runCli(['tenant', 'create', 'acme', '--data', source]);
    assert.equal(created.code, 0, created.stderr);
    assert.equal((await runCli(['backup', '--data', source, '--to', backupDir])).code, 0);

    const again = await runCli(['backup', '--data', source, '--to', backupDir]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /error \(backup_target_not_empty\): --to .* is not empty/);

    const occupied = await runCli(['restore', '--from', backupDir, '--data', source]);
    assert.equal(occupied.code, 1);
    assert.match(occupied.stderr, /error \(backup_target_not_empty\): --data .* is not empty/);
    const forced = await runCli(['restore', '--from', backupDir, '--data', source, '--force']);
    assert.equal(forced.code, 0, forced.stderr);

    const verified = await runCli(['restore', '--from', backupDir, '--verify-only']);
    assert.equal(verified.code, 0, verified.stderr);
    assert.match(verified.stdout, /is intact/);

    const file = path.join(backupDir, 'sightline.db');
    const bytes = fs.readFileSync(file);
    bytes[bytes.length - 100] = bytes[bytes.length - 100]! ^ 0xff;
    fs.writeFileSync(file, bytes);
    const damaged = await runCli(['restore', '--from', backupDir, '--data', fresh('sightline-never-')]);
    assert.equal(damaged.code, 1);
    assert.match(damaged.stderr, /error \(backup_invalid\): sightline\.db differs from the manifest/);

    fs.rmSync(path.join(backupDir, 'manifest.json'));
    const unfinished = await runCli(['restore', '--from', backupDir, '--data', fresh('sightline-never-')]);
    assert.match(unfinished.stderr, /error \(backup_invalid\): .*manifest\.json is missing/);
  });
});

describe('PostgreSQL backup with pg_dump and pg_restore, as documented', { skip: postgres.skip }, () => {
  let database: TestDatabase;
  let server: TestServer | undefined;

  before(async () => {
    database = await postgres.create();
    server = await startServer(database);
  });
  after(() => closeOpened(server, database));

  test('sightline backup points a PostgreSQL deployment to pg_dump', async () => {
    const refused = await runCli(['backup', '--database', database.databaseUrl, '--to', tempDir()]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /error \(backup_unsupported\): .*pg_dump.*pg_restore/);
  });

  test('a dump taken under ingest load restores every acknowledged record, the case and the token', async () => {
    const seeded = await seedCaseAndToken(server!, 'postgres');
    const load = startLoad(server!);
    await waitFor(() => load.acknowledged.size >= 2_000, '2000 acknowledged records');
    const url = new URL(database.databaseUrl);
    const schema = url.searchParams.get('schema')!;
    url.searchParams.delete('schema');
    const dump = path.join(database.dataDir, 'sightline.dump');
    const started = Date.now();
    await run('pg_dump', ['--format=custom', `--schema=${schema}`, `--file=${dump}`, url.toString()]);
    const before = [...load.acknowledged].filter(([, at]) => at < started).map(([marker]) => marker);
    await load.stop();
    await server!.close();
    server = undefined;
    await dropSchema(url.toString(), schema);
    await run('pg_restore', ['--exit-on-error', `--dbname=${url.toString()}`, dump]);
    server = await startServer(database);
    await checkRestored(server, seeded, before);
  });
});
