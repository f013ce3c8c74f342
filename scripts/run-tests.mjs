// Runs the test files with Node's test runner in one of two tiers:
//
//   unit (`npm run test:unit`, `node scripts/run-tests.mjs --unit`): files that start no Sightline
//     server and no other process: the unit tests beside the code in src/ (less SPAWNING below)
//     and test/integration/, the cross-module suites that drive the code in-process. They may
//     open a SQLite file in a temporary directory, use the PostgreSQL found below (a database the
//     machine runs, not a server a test starts) and answer themselves on loopback (an in-process
//     fake of a provider or a sink). Needs no build; meant to finish in under two minutes on 2 cores.
//   all (`npm test`, the default): every *.test.ts in src/ and test/. test/api, cli, collector,
//     detection, durability, scale and ui start real servers, the CLI, forwarders, NATS or a
//     browser; the CLI suites run the compiled command, so this tier first builds dist/. It also
//     compiles the whole tree into .build/ (scripts/test-build.mjs) and runs the compiled test
//     files on plain Node: under tsx's loader hooks each file spent seconds of CPU importing the
//     server (docs/development.md).
//
// Arguments after the tier narrow it to the files whose path contains one of them; --list prints
// the files in the order they would start, and runs none.
//
// Files run in path order (FIRST below excepted), CONCURRENCY at a time (3 on 2 cores: files
// wait on servers, browsers and child processes much of their time, and a third file fills
// those waits; SIGHTLINE_TEST_CONCURRENCY overrides it). After the run the longest files are
// printed (the time in their tests, from scripts/test-file-times.mjs; all of them in
// test-artifacts/test-file-times.json), the place to start when the suite must get shorter.
//
// PostgreSQL is found here, once, before any test file starts, and handed to them all in the
// environment (test/helpers/databases.ts reads it): SIGHTLINE_TEST_DATABASE_URL when it is set,
// else a local server at postgres://postgres@127.0.0.1:5432, in the database sightline_test
// (created when missing; every suite makes a schema of its own in it). Without one the
// PostgreSQL suites are skipped loudly, and under CI (CI set) the run fails instead.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { BUILD_DIR, buildTestTree, compiledTest } from './test-build.mjs';

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

/** Unit tests in src/ that run a child process (syslog-ng, node): they belong to the full tier. */
const SPAWNING = ['src/collector/forwarders/forwarder-configs.test.ts', 'src/cli/node-flags.test.ts'];
const UNIT_ROOTS = ['src', 'test/integration'];

const isUnit = (file) => UNIT_ROOTS.some((root) => file.startsWith(`${root}/`)) && !SPAWNING.includes(file);

/**
 * Started before the rest: the longest file (browsers sweeping every page), which in path order
 * came last and ran alone for minutes while the other slot had nothing left to run.
 */
const FIRST = ['test/ui/ui-accessibility.browser.test.ts'];

const CONCURRENCY = Number(process.env.SIGHTLINE_TEST_CONCURRENCY || 3);
if (!Number.isInteger(CONCURRENCY) || CONCURRENCY < 1) {
  console.error('run-tests: SIGHTLINE_TEST_CONCURRENCY must be a whole number of at least 1');
  process.exit(1);
}

const args = process.argv.slice(2);
const unitOnly = args.includes('--unit');
const listOnly = args.includes('--list');
const filter = args.filter((arg) => arg !== '--unit' && arg !== '--list');
const files = [...findTests('src'), ...findTests('test')]
  .map((file) => file.split(path.sep).join('/'))
  .filter((file) => !unitOnly || isUnit(file))
  .filter((file) => filter.length === 0 || filter.some((part) => file.includes(part)))
  .sort()
  .sort((a, b) => Number(FIRST.includes(b)) - Number(FIRST.includes(a)));
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}

/** Compiles the server into dist/ and copies what tsc does not (the query grammar). */
function buildServer() {
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
  // As `npm run build:server` does.
  const assets = spawnSync(process.execPath, ['scripts/copy-assets.mjs'], { stdio: 'inherit' });
  if (assets.status !== 0) {
    console.error('run-tests: copying the build assets (scripts/copy-assets.mjs) failed');
    process.exit(assets.status ?? 1);
  }
}

/** The source of a compiled test file (`.build/test/x.test.js` → `test/x.test.ts`), else the file. */
const sourceOf = (file) =>
  file.startsWith(`${BUILD_DIR}/`) ? file.slice(BUILD_DIR.length + 1).replace(/\.js$/, '.ts') : file;

/** Prints the longest files and the counts that scripts/test-file-times.mjs wrote. */
function report(timesFile) {
  let times;
  try {
    times = JSON.parse(readFileSync(timesFile, 'utf8'));
  } catch (error) {
    console.error(`run-tests: no file times in ${timesFile}: ${messageOf(error)}`);
    return;
  }
  console.log('\nrun-tests: the longest files (seconds in their tests):');
  for (const { file, seconds } of times.files.slice(0, 12)) {
    console.log(`  ${String(seconds).padStart(6)}  ${sourceOf(path.relative(process.cwd(), file))}`);
  }
  console.log(`tests: ${times.passed} passed, ${times.failed} failed, ${times.skipped} skipped`);
}

if (listOnly) {
  console.log(files.join('\n'));
  process.exit(0);
}
const fullTier = !files.every(isUnit);
if (fullTier) {
  buildServer();
  const failed = buildTestTree();
  if (failed) {
    console.error(`run-tests: compiling the tests into ${BUILD_DIR}/ failed: ${failed}`);
    process.exit(1);
  }
}
const env = { ...process.env, ...(await postgresEnvironment()) };
// dist/ was built from this source a moment ago: worker threads start from it, as in production,
// rather than compiling their module graph again under tsx for every server a suite starts
// (src/core/worker-thread.ts).
if (fullTier) env.SIGHTLINE_BUILT_DIST = path.resolve('dist');
// Hundreds of sign-ins and new accounts: hashed at scrypt's production work factor each takes
// tens of milliseconds of CPU, minutes over the run. Throwaway passwords get the lowest factor
// (--password-hash-cost); src/identity/users/password.test.ts checks the default one.
env.SIGHTLINE_PASSWORD_HASH_COST ??= '10';
// An empty SIGHTLINE_TEST_DATABASE_URL counts as unset; leave none behind for the test files.
if (!env.SIGHTLINE_TEST_DATABASE_URL) delete env.SIGHTLINE_TEST_DATABASE_URL;
const timesFile = path.join('test-artifacts', 'test-file-times.json');
mkdirSync(path.dirname(timesFile), { recursive: true });
rmSync(timesFile, { force: true });
console.log(`run-tests: ${files.length} files, ${CONCURRENCY} at a time${unitOnly ? ' (unit tier)' : ''}`);
const result = spawnSync(
  process.execPath,
  [
    ...(fullTier ? ['--enable-source-maps'] : ['--import', 'tsx']),
    '--test',
    `--test-concurrency=${CONCURRENCY}`,
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    '--test-reporter=./scripts/test-file-times.mjs',
    `--test-reporter-destination=${timesFile}`,
    ...(fullTier ? files.map(compiledTest) : files),
  ],
  { stdio: 'inherit', env },
);
report(timesFile);
process.exit(result.status ?? 1);
