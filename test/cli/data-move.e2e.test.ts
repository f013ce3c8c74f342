// `sightline data migrate`: an embedded deployment with real content (demo traffic through the
// collector, detection's observations and cases, a comment, a person, a token) moved into a fresh
// PostgreSQL schema by the real command in its own process — killed part way and resumed — then
// served from PostgreSQL: the token and the password made on SQLite work there, and new records
// get ids past the moved ones.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { databaseTargets, type TestDatabase } from '../helpers/databases.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { apiClient, bearer, detectionCaughtUp, ingest, issueToken, seedTenant, signIn } from '../helpers/api.js';
import { runCli, sightlineArgs } from '../helpers/cli.js';
import { repoRoot } from '../helpers/processes.js';
import { schemaClient } from '../helpers/postgres.js';
import { webAccessRecord } from '../helpers/factories.js';

const [sqliteTarget, postgresTarget] = databaseTargets;

interface CaseList {
  cases: { id: string; title: string }[];
}

/** Rows of each table the move must carry, read straight from a database. */
async function pgCount(url: string, table: string): Promise<number> {
  const client = await schemaClient(url);
  try {
    return Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]?.n);
  } finally {
    await client.end();
  }
}

/** Runs the move and SIGKILLs it once it reports telemetry_records part way. */
function interruptedMove(args: string[]): Promise<{ stdout: string; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, sightlineArgs(args), { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (/^telemetry_records: \d+ of \d+ rows$/m.test(stdout)) child.kill('SIGKILL');
    });
    child.on('error', reject);
    child.on('close', (_code, signal) => resolve({ stdout, signal }));
  });
}

describe('moving an embedded deployment into PostgreSQL', { skip: postgresTarget?.skip ?? 'no PostgreSQL' }, () => {
  let source: TestDatabase;
  let target: TestDatabase;
  let server: TestServer | undefined;
  let tokenValue: string;
  let caseTitles: string[];
  let records: number;

  before(async () => {
    source = await sqliteTarget!.create();
    target = await postgresTarget!.create();
    server = await startServer(source);
    const acme = await seedTenant(server, 'acme');
    tokenValue = (await issueToken(server, acme)).value;
    await signIn(server, {
      tenant: acme,
      role: 'analyst',
      email: 'ana@acme.example',
      password: 'moved along with the rest',
    });
    const demo = await runCli([
      'demo',
      '--url',
      server.baseUrl,
      '--tenant',
      'acme',
      '--duration',
      '3s',
      '--seed',
      '11',
    ]);
    assert.equal(demo.code, 0, demo.stderr);
    // Enough records that a small batch size leaves time to stop the move part way.
    for (let i = 0; i < 6; i++) {
      await ingest(
        server,
        Array.from({ length: 500 }, (_, n) => webAccessRecord({ path: `/move/${i}/${n}` })),
      );
    }
    await detectionCaughtUp(server, 60_000);
    const client = apiClient(server, bearer(tokenValue));
    const cases = (await client.post<CaseList>('/v1/cases', { sort: 'created', order: 'asc' })).body.cases;
    assert.ok(cases.length > 0, 'the demo traffic opened cases');
    const comment = await client.post(`/v1/cases/${cases[0]!.id}/comments`, {
      body: 'checked on the embedded database',
    });
    assert.equal(comment.status, 201);
    caseTitles = cases.map((item) => item.title);
    records = Number(
      (
        await server.sightline.database.db
          .selectFrom('telemetry_records')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
    await server.close();
    server = undefined;
  });
  after(async () => {
    await server?.close();
    await source.cleanup();
    await target.cleanup();
  });

  test('a move killed part way resumes where it stopped and ends with equal counts', async () => {
    const args = ['data', 'migrate', '--data', source.dataDir, '--to', target.databaseUrl, '--batch-rows', '25'];
    const killed = await interruptedMove(args);
    assert.equal(killed.signal, 'SIGKILL', `the move finished before it could be stopped:\n${killed.stdout}`);
    const partial = await pgCount(target.databaseUrl, 'telemetry_records');
    assert.ok(partial > 0 && partial < records, `${partial} of ${records} records were moved before the kill`);
    assert.equal(
      await pgCount(target.databaseUrl, "data_move_progress WHERE table_name = 'telemetry_records' AND done = 0"),
      1,
    );

    const resumed = await runCli(args);
    assert.equal(resumed.code, 0, resumed.stderr + resumed.stdout);
    assert.match(resumed.stdout, /^resuming the move into /m);
    assert.match(resumed.stdout, /^tenants: already moved \(2 rows\)$/m);
    assert.match(resumed.stdout, /^verified: \d+ tables, \d+ rows, counts equal$/m);
    assert.equal(await pgCount(target.databaseUrl, 'telemetry_records'), records);
    assert.ok((await pgCount(target.databaseUrl, 'observations')) > 0);
    assert.equal(await pgCount(target.databaseUrl, 'case_comments'), 1);
    // Progress shows table names and counts, never what the rows hold.
    assert.doesNotMatch(resumed.stdout + killed.stdout, /\/move\/|moved along|checked on the embedded/);

    const again = await runCli(args);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^telemetry_records: already moved \(\d+ rows\)$/m);
  });

  test('the server on PostgreSQL serves the moved deployment: token, password, cases, new ids', async () => {
    const observations = await pgCount(target.databaseUrl, 'observations');
    server = await startServer(target);
    const client = apiClient(server, bearer(tokenValue));
    const me = await client.get<{ tenant: { code_name: string } }>('/v1/me');
    assert.equal(me.status, 200, JSON.stringify(me.body));
    const cases = (await client.post<CaseList>('/v1/cases', { sort: 'created', order: 'asc' })).body.cases;
    assert.deepEqual(
      cases.map((item) => item.title),
      caseTitles,
    );
    const login = await apiClient(server).post('/v1/auth/login', {
      email: 'ana@acme.example',
      password: 'moved along with the rest',
    });
    assert.equal(login.status, 200, JSON.stringify(login.body));
    // Ids continue past the moved ones: a new record is stored and found by text search once indexed.
    await ingest(server, [webAccessRecord({ note: 'relocated zq7' })]);
    assert.equal(await pgCount(target.databaseUrl, 'telemetry_records'), records + 1);
    let found = 0;
    for (let i = 0; i < 100 && found === 0; i++) {
      const search = await client.post<{ records: unknown[] }>('/v1/telemetry/search', { query: 'relocated zq7' });
      assert.equal(search.status, 200, JSON.stringify(search.body));
      found = search.body.records.length;
      if (found === 0) await sleep(100);
    }
    assert.equal(found, 1);
    // Detection on PostgreSQL starts after the moved records: nothing is detected twice.
    await detectionCaughtUp(server, 60_000);
    assert.equal(await pgCount(target.databaseUrl, 'observations'), observations);
    await server.close();
    server = undefined;
  });

  test('a target that already holds a deployment is refused', async () => {
    const occupied = await postgresTarget!.create();
    try {
      const other = await startServer(occupied);
      await other.close();
      const refused = await runCli(['data', 'migrate', '--data', source.dataDir, '--to', occupied.databaseUrl]);
      assert.equal(refused.code, 1);
      assert.match(
        refused.stderr,
        /^error \(move_target_not_empty\): the target already holds data \(its tenants table has rows\)/,
      );
    } finally {
      await occupied.cleanup();
    }
  });

  test('bad input names the option and what was wrong', async () => {
    const notPostgres = await runCli(['data', 'migrate', '--data', source.dataDir, '--to', 'sqlite:/tmp/x.db']);
    assert.equal(notPostgres.code, 1);
    assert.match(notPostgres.stderr, /^error \(invalid_request\): --to must be a postgres:\/\/ or postgresql:\/\/ URL/);
    const batch = await runCli([
      'data',
      'migrate',
      '--data',
      source.dataDir,
      '--to',
      target.databaseUrl,
      '--batch-rows',
      '0',
    ]);
    assert.equal(batch.code, 1);
    assert.match(batch.stderr, /^error \(invalid_request\): --batch-rows must be a positive integer; got "0"/);
  });
});
