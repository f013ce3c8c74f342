// `sightline user invite|set|delete|reset-password|sessions` as an operator uses them: the real
// command against a data directory, its effect checked on a real server over HTTP.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { databaseTargets, type TestDatabase } from '../helpers/databases.js';
import { runCli } from '../helpers/cli.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { apiClient } from '../helpers/api.js';
import { Authenticator } from '../helpers/totp.js';

const PASSWORD = 'amber-tundra-whistle-ferry';
// SQLite is enough here: the commands call the same services the API suites run on both dialects.
const sqlite = databaseTargets.find((target) => target.kind === 'sqlite')!;

describe('sightline user lifecycle commands', () => {
  let database: TestDatabase;
  let server: TestServer;
  let data: string[];
  const tenant = ['--tenant', 'acme'];

  before(async () => {
    database = await sqlite.create();
    data = ['--data', database.dataDir];
    assert.equal((await runCli(['tenant', 'create', 'acme', ...data])).code, 0);
    assert.equal((await runCli(['tenant', 'create', 'globex', ...data])).code, 0);
    server = await startServer(database);
  });
  after(async () => {
    await server.close();
    await database.cleanup();
  });

  const login = (email: string, password = PASSWORD) => apiClient(server).post('/v1/auth/login', { email, password });
  /** The code in a printed link's fragment, redeemed over HTTP with PASSWORD. */
  const redeem = async (link: string, password = PASSWORD) => {
    const code = new URL(link.trim()).hash.replace(/^#code=/, '');
    return apiClient(server).post('/v1/auth/password-codes/redeem', { code, password });
  };

  test('invite prints a one-time link alone on stdout; the person sets a password with it and signs in', async () => {
    const invited = await runCli(['user', 'invite', 'cleo@acme.test', '--role', 'analyst', ...tenant, ...data]);
    assert.equal(invited.code, 0, invited.stderr);
    assert.match(invited.stdout, /^https?:\/\/[^\s]+\/set-password#code=slc_\w+\n$/);
    assert.match(invited.stderr, /invited analyst cleo@acme\.test/);
    assert.equal((await login('cleo@acme.test')).status, 401);
    assert.equal((await redeem(invited.stdout)).status, 200);
    assert.equal((await login('cleo@acme.test')).status, 200);
  });

  test('set --disable stops sign-in and ends sessions; --enable restores; --role changes the role', async () => {
    await runCli(['user', 'invite', 'finn@acme.test', '--role', 'viewer', ...tenant, ...data]).then((r) =>
      redeem(r.stdout),
    );
    const signedIn = await login('finn@acme.test');
    const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0]!;
    const disabled = await runCli(['user', 'set', 'finn@acme.test', '--disable', ...tenant, ...data]);
    assert.equal(disabled.code, 0, disabled.stderr);
    assert.match(disabled.stdout, /finn@acme\.test\tviewer\tdisabled/);
    assert.equal((await apiClient(server, { cookie }).get('/v1/me')).status, 401);
    assert.equal((await login('finn@acme.test')).status, 401);

    const enabled = await runCli([
      'user',
      'set',
      'finn@acme.test',
      '--enable',
      '--role',
      'analyst',
      ...tenant,
      ...data,
    ]);
    assert.equal(enabled.code, 0, enabled.stderr);
    assert.match(enabled.stdout, /finn@acme\.test\tanalyst\tactive/);
    assert.equal((await login('finn@acme.test')).status, 200);

    const listed = await runCli(['user', 'list', '--json', ...tenant, ...data]);
    const finn = listed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { email: string; role: string; status: string })
      .find((user) => user.email === 'finn@acme.test');
    assert.deepEqual([finn?.role, finn?.status], ['analyst', 'active']);
  });

  test('reset-password prints a link that sets a new password; sessions lists and --end ends sessions', async () => {
    await runCli(['user', 'invite', 'gus@acme.test', '--role', 'viewer', ...tenant, ...data]).then((r) =>
      redeem(r.stdout),
    );
    await login('gus@acme.test');
    const sessions = await runCli(['user', 'sessions', 'gus@acme.test', ...tenant, ...data]);
    assert.match(sessions.stdout, /^ses_[\w-]{22}\t/);
    const ended = await runCli(['user', 'sessions', 'gus@acme.test', '--end', ...tenant, ...data]);
    assert.match(ended.stdout, /ended 1 sessions/);

    const reset = await runCli(['user', 'reset-password', 'gus@acme.test', ...tenant, ...data]);
    assert.equal(reset.code, 0, reset.stderr);
    assert.match(reset.stderr, /password reset link/);
    assert.equal((await redeem(reset.stdout, 'saffron-glacier-mosaic-hen')).status, 200);
    assert.equal((await login('gus@acme.test')).status, 401);
    assert.equal((await login('gus@acme.test', 'saffron-glacier-mosaic-hen')).status, 200);
  });

  test("delete frees the email; another tenant's people are not found", async () => {
    await runCli(['user', 'invite', 'hal@acme.test', '--role', 'viewer', ...tenant, ...data]);
    const elsewhere = await runCli(['user', 'delete', 'hal@acme.test', '--tenant', 'globex', ...data]);
    assert.equal(elsewhere.code, 1);
    assert.match(elsewhere.stderr, /not_found.*hal@acme\.test/);
    const deleted = await runCli(['user', 'delete', 'hal@acme.test', ...tenant, ...data]);
    assert.equal(deleted.code, 0, deleted.stderr);
    const again = await runCli(['user', 'invite', 'hal@acme.test', '--role', 'viewer', ...tenant, ...data]);
    assert.equal(again.code, 0, again.stderr);
  });

  test('reset-second-factor lets a person who lost their phone sign in with the password alone', async () => {
    await runCli(['user', 'invite', 'ida@acme.test', '--role', 'viewer', ...tenant, ...data]).then((r) =>
      redeem(r.stdout),
    );
    const signedIn = await login('ida@acme.test');
    const session = apiClient(server, { cookie: (signedIn.headers.get('set-cookie') ?? '').split(';')[0]! });
    const csrf = { 'x-csrf-token': (signedIn.body as { csrf_token: string }).csrf_token };
    const started = await session.post<{ secret: string }>('/v1/me/second-factor', {}, csrf);
    const phone = new Authenticator(started.body.secret);
    const code = await phone.freshCode();
    const confirmed = await session.post('/v1/me/second-factor/confirm', { code, password: PASSWORD }, csrf);
    assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
    assert.equal((await login('ida@acme.test')).status, 401, 'the password alone no longer signs in');

    const reset = await runCli(['user', 'reset-second-factor', 'ida@acme.test', ...tenant, ...data]);
    assert.equal(reset.code, 0, reset.stderr);
    assert.equal((await login('ida@acme.test')).status, 200);
    const operator = await runCli(['user', 'reset-second-factor', 'ida@acme.test', ...data]);
    assert.match(operator.stderr, /no platform operator.*give --tenant/);
  });

  test('bad flags name what is wrong', async () => {
    const both = await runCli(['user', 'set', 'x@acme.test', '--disable', '--enable', ...tenant, ...data]);
    assert.match(both.stderr, /--disable or --enable, not both/);
    const role = await runCli(['user', 'invite', 'y@acme.test', '--role', 'operator', ...tenant, ...data]);
    assert.match(role.stderr, /--role must be one of admin, analyst, viewer/);
    const nothing = await runCli(['user', 'set', 'x@acme.test', ...tenant, ...data]);
    assert.match(nothing.stderr, /nothing to change/);
  });
});
