// `sightline observation-requests` as an operator uses it: the real command as a child process,
// and the review decisions it records taking effect on a real server that shares its database.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { closeOpened } from '../helpers/suite.js';
import { databaseTargets, type TestDatabase } from '../helpers/databases.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { apiClient, bearer, type ApiClient, type Problem } from '../helpers/api.js';
import type { Page, SessionAnswer } from '../helpers/responses.js';
import type { WriteRequestView } from '../../src/observations/write-request-service.js';

function lines(output: string): string[] {
  return output.trimEnd().split('\n');
}

for (const target of databaseTargets) {
  describe(`sightline observation-requests on ${target.kind}`, { skip: target.skip }, () => {
    let database: TestDatabase;
    let server: TestServer;
    /** `--data` and `--database`, so the CLI works on the very database the server uses. */
    let storage: string[];
    let admin: ApiClient;
    let writer: ApiClient;
    const tenant = 'acme';
    const adminEmail = `admin-${target.kind}@acme.example`;
    const adminPassword = 'a long enough admin password';
    const statement = {
      service_impact: 'No change to the managed services',
      correlation: 'EDR alerts name hosts, so they join the same cases',
      expected_volume_per_hour: 2,
    };
    const observation = (externalId: string) => ({
      external_id: externalId,
      title: 'EDR: credential dumping',
      level: 'critical',
      techniques: ['T1003.001'],
      host: 'ws-042',
      first_time: new Date().toISOString(),
    });

    async function cli(args: string[], input?: string): Promise<CliResult> {
      return runCli([...args, ...storage], {}, input);
    }

    interface ListedRequest {
      id: string;
      tenant: string;
      status: string;
      decision_note: string | null;
      decided_by: string | null;
    }

    async function listed(): Promise<ListedRequest[]> {
      const result = await cli(['observation-requests', 'list', '--json']);
      assert.equal(result.code, 0, result.stderr);
      return result.stdout ? lines(result.stdout).map((line) => JSON.parse(line) as ListedRequest) : [];
    }

    async function fileRequest(): Promise<string> {
      const filed = await admin.post<WriteRequestView>('/v1/observation-write-requests', statement);
      assert.equal(filed.status, 201, JSON.stringify(filed.body));
      assert.equal(filed.body.status, 'pending');
      return filed.body.id;
    }

    before(async () => {
      database = await target.create();
      storage = ['--data', database.dataDir, ...(database.databaseUrl ? ['--database', database.databaseUrl] : [])];
      // Tenant, admin and token all made by the CLI, as an operator would.
      const created = await cli(['tenant', 'create', tenant]);
      assert.equal(created.code, 0, created.stderr);
      const user = await cli(
        ['user', 'create', '--tenant', tenant, '--email', adminEmail, '--role', 'admin', '--password-stdin'],
        `${adminPassword}\n`,
      );
      assert.equal(user.code, 0, user.stderr);
      const token = await cli([
        'token',
        'create',
        '--tenant',
        tenant,
        '--name',
        'EDR bridge',
        '--permissions',
        'observations:write,observations:read',
      ]);
      assert.equal(token.code, 0, token.stderr);

      server = await startServer(database);
      writer = apiClient(server, bearer(token.stdout.trim()));
      const login = await apiClient(server).post<SessionAnswer>('/v1/auth/login', {
        email: adminEmail,
        password: adminPassword,
      });
      assert.equal(login.status, 200, JSON.stringify(login.body));
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
      admin = apiClient(server, { cookie, 'x-csrf-token': login.body.csrf_token });
    });

    after(() => closeOpened(server, database));

    test('list shows a filed request as pending; approve lets the tenant write, held to --limit-per-hour', async () => {
      assert.equal((await writer.post('/v1/observations', observation('edr-0'))).status, 403, 'not approved yet');
      const id = await fileRequest();

      const text = await cli(['observation-requests', 'list', '--status', 'pending']);
      assert.equal(text.code, 0, text.stderr);
      assert.match(
        text.stdout,
        new RegExp(
          `^${id}\\t${tenant}\\tpending\\t2/h\\t${adminEmail.replace(/\./g, '\\.')}\\t\\d{4}-\\d{2}-\\d{2}T[\\d:.]+Z$`,
          'm',
        ),
      );
      assert.deepEqual(
        (await listed()).map((item) => [item.id, item.tenant, item.status]),
        [[id, tenant, 'pending']],
      );

      const approved = await cli(['observation-requests', 'approve', id, '--limit-per-hour', '5', '--note', 'ok']);
      assert.equal(approved.code, 0, approved.stderr);
      assert.equal(approved.stdout, `approved ${id} for ${tenant}\n`);
      const [item] = await listed();
      assert.deepEqual(
        { status: item!.status, note: item!.decision_note, by: item!.decided_by },
        { status: 'approved', note: 'ok', by: 'cli' },
      );
      assert.equal(
        (await cli(['observation-requests', 'list', '--status', 'pending'])).stdout,
        '',
        'no longer pending',
      );

      // The running server sees the decision the CLI wrote: writes are accepted, up to 5 an hour
      // (the limit given, not the 2 the tenant asked for).
      for (let n = 1; n <= 5; n++) {
        const written = await writer.post('/v1/observations', observation(`edr-${n}`));
        assert.equal(written.status, 201, `write ${n}: ${JSON.stringify(written.body)}`);
      }
      const limited = await writer.post<Problem>('/v1/observations', observation('edr-6'));
      assert.equal(limited.status, 429, JSON.stringify(limited.body));
      assert.equal(limited.body.code, 'observation_rate_limited');

      const again = await cli(['observation-requests', 'approve', id]);
      assert.equal(again.code, 1);
      assert.match(again.stderr, new RegExp(`error \\(review_request_decided\\): request ${id} was already approved`));
    });

    test('reject needs --note (usage error, exit 2); with it the request is rejected and the tenant sees the note', async () => {
      const id = await fileRequest();

      const noNote = await cli(['observation-requests', 'reject', id]);
      assert.equal(noNote.code, 2, noNote.stderr);
      assert.match(noNote.stderr, /required option '--note <text>' not specified/);
      assert.equal((await listed()).find((item) => item.id === id)?.status, 'pending', 'nothing decided');

      const rejected = await cli(['observation-requests', 'reject', id, '--note', 'no']);
      assert.equal(rejected.code, 0, rejected.stderr);
      assert.equal(rejected.stdout, `rejected ${id} for ${tenant}\n`);
      const mine = await admin.get<Page<'requests', WriteRequestView>>('/v1/observation-write-requests');
      assert.equal(mine.status, 200, JSON.stringify(mine.body));
      const seen = mine.body.requests.find((request) => request.id === id);
      assert.deepEqual({ status: seen?.status, note: seen?.decision_note }, { status: 'rejected', note: 'no' });

      const rejectedOnly = await cli(['observation-requests', 'list', '--status', 'rejected', '--json']);
      assert.deepEqual(
        lines(rejectedOnly.stdout).map((line) => (JSON.parse(line) as { id: string }).id),
        [id],
      );
    });

    test('an unknown id, a bad --limit-per-hour and a bad --status fail with the reason and exit 1', async () => {
      const unknown = await cli(['observation-requests', 'approve', 'owr_doesnotexist', '--note', 'ok']);
      assert.equal(unknown.code, 1);
      assert.equal(unknown.stdout, '');
      assert.match(unknown.stderr, /^error \(not_found\): review request owr_doesnotexist not found$/m);

      const unknownReject = await cli(['observation-requests', 'reject', 'owr_doesnotexist', '--note', 'no']);
      assert.equal(unknownReject.code, 1);
      assert.match(unknownReject.stderr, /not_found.*owr_doesnotexist/);

      for (const limit of ['0', '-3', '2.5', 'many', '0x10', '1e3']) {
        const bad = await cli(['observation-requests', 'approve', 'owr_doesnotexist', '--limit-per-hour', limit]);
        assert.equal(bad.code, 1, limit);
        assert.match(bad.stderr, /invalid_request.*--limit-per-hour must be a positive integer/, limit);
      }
      const tooMany = await cli(['observation-requests', 'approve', 'owr_doesnotexist', '--limit-per-hour', '2000000']);
      assert.equal(tooMany.code, 1);
      assert.match(tooMany.stderr, /invalid_request.*--limit-per-hour must be at most 1000000/);
      const emptyNote = await cli(['observation-requests', 'reject', 'owr_doesnotexist', '--note', '  ']);
      assert.equal(emptyNote.code, 1);
      assert.match(emptyNote.stderr, /invalid_request.*--note must say why/);

      const badStatus = await cli(['observation-requests', 'list', '--status', 'maybe']);
      assert.equal(badStatus.code, 1);
      assert.match(badStatus.stderr, /invalid_request.*--status must be one of pending, approved, rejected/);
    });
  });
}
