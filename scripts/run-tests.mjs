// Runs every test file (unit tests beside the code in src/, cross-module tests in test/) with
// Node's test runner, TypeScript loaded by tsx. Node 20's runner does not expand globs itself.
// First it compiles the server into dist/, which the CLI suites run.
//
// PostgreSQL is found here, once, before any test file starts, and handed to them all in the
// environment (test/helpers/databases.ts reads it): SIGHTLINE_TEST_DATABASE_URL when it is set,
// else a local server at postgres://postgres@127.0.0.1:5432, in the database sightline_test
// (created when missing; every suite makes a schema of its own in it). Without one the
// PostgreSQL suites are skipped loudly, and under CI (CI set) the run fails instead.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';

const LOCAL_SERVER = 'postgres://postgres@127.0.0.1:5432';
const TEST_DATABASE = 'sightline_test';
const CONNECT_TIMEOUT_MS = 2_000;

function findTests(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : findTests(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

const messageOf = (error) => (error instanceof Error && error.message) || String(error?.code ?? error);

/** The URL without its password, to print. */
function shown(url) {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(not a URL)';
  }
}

/**
 * The local server's test database, created when missing: `{ url }`, or `{ absent }` saying why
 * there is none (nothing answers, or the server refused).
 */
async function findLocalPostgres() {
  const admin = new pg.Client({
    connectionString: `${LOCAL_SERVER}/postgres`,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    query_timeout: 30_000,
  });
  try {
    await admin.connect();
  } catch (error) {
    // pg has closed the failed connection itself.
    return { absent: `nothing usable answers at ${LOCAL_SERVER}: ${messageOf(error)}` };
  }
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [TEST_DATABASE]);
    if (found.rowCount === 0) {
      try {
        await admin.query(`CREATE DATABASE ${TEST_DATABASE}`);
        console.log(`run-tests: created the database ${TEST_DATABASE} on ${LOCAL_SERVER}`);
      } catch (error) {
        // Another run created it meanwhile: duplicate_database, or the catalogue's unique index.
        if (error?.code !== '42P04' && error?.code !== '23505') throw error;
      }
    }
    return { url: `${LOCAL_SERVER}/${TEST_DATABASE}` };
  } catch (error) {
    return { absent: `${LOCAL_SERVER} answers, but the database ${TEST_DATABASE} is not usable: ${messageOf(error)}` };
  } finally {
    await admin.end();
  }
}

/** The environment the test files get: the PostgreSQL URL, or why there is none. */
async function postgresEnvironment() {
  const given = process.env.SIGHTLINE_TEST_DATABASE_URL;
  if (given) {
    console.log(`run-tests: PostgreSQL suites on ${shown(given)} (SIGHTLINE_TEST_DATABASE_URL)`);
    return { SIGHTLINE_TEST_DATABASE_URL: given };
  }
  const local = await findLocalPostgres();
  if (local.url) {
    console.log(
      `run-tests: PostgreSQL suites on ${local.url} (found locally; set SIGHTLINE_TEST_DATABASE_URL to use another)`,
    );
    return { SIGHTLINE_TEST_DATABASE_URL: local.url };
  }
  const message = `no PostgreSQL (SIGHTLINE_TEST_DATABASE_URL is not set and ${local.absent}): the PostgreSQL suites are NOT running`;
  if (process.env.CI) {
    console.error(`run-tests: ${message}. CI must provide PostgreSQL.`);
    process.exit(1);
  }
  console.warn(`\n*** WARNING: ${message} ***\n`);
  return { SIGHTLINE_TEST_POSTGRES_ABSENT: local.absent };
}

const filter = process.argv.slice(2);
const files = [...findTests('src'), ...findTests('test')]
  .filter((file) => filter.length === 0 || filter.some((part) => file.includes(part)))
  .sort();
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
// The CLI suites run the compiled command (dist/), as `npx sightline` does: a compiled process
// starts in half the time of one that compiles its TypeScript first, and they start hundreds.
// Built here, so they never test an older build than the source.
const build = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
  stdio: 'inherit',
});
if (build.status !== 0) {
  console.error('run-tests: the server build (tsc -p tsconfig.build.json) failed');
  process.exit(build.status ?? 1);
}
// What tsc does not copy (the query grammar), as `npm run build:server` does.
const assets = spawnSync(process.execPath, ['scripts/copy-assets.mjs'], { stdio: 'inherit' });
if (assets.status !== 0) {
  console.error('run-tests: copying the build assets (scripts/copy-assets.mjs) failed');
  process.exit(assets.status ?? 1);
}
const env = { ...process.env, ...(await postgresEnvironment()) };
// An empty SIGHTLINE_TEST_DATABASE_URL counts as unset; leave none behind for the test files.
if (!env.SIGHTLINE_TEST_DATABASE_URL) delete env.SIGHTLINE_TEST_DATABASE_URL;
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files],
  { stdio: 'inherit', env },
);
process.exit(result.status ?? 1);
