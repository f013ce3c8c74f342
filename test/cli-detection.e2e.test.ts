// `sightline rules test` and `sightline observation-requests` as an operator uses them: the real
// command as a child process, on the bundled rule pack and on broken rules, and the review
// decisions it records taking effect on a real server that shares its database.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { closeOpened } from './helpers/suite.js';
import { databaseTargets, tempDir, type TestDatabase } from './helpers/databases.js';
import { runCli, type CliResult } from './helpers/cli.js';
import { startServer, type TestServer } from './helpers/server.js';
import { apiClient, bearer, type ApiClient, type Problem } from './helpers/api.js';
import type { Page, SessionAnswer } from './helpers/responses.js';
import type { WriteRequestView } from '../src/observations/write-request-service.js';

// The bundled pack, as `rules test rules` reports it today; a new rule changes these on purpose.
const BUNDLED = { detection: 51, correlation: 5 };

function lines(output: string): string[] {
  return output.trimEnd().split('\n');
}

function sigmaRule(title: string, id: string, detection: string): string {
  return [
    `title: ${title}`,
    `id: ${id}`,
    'status: test',
    'logsource:',
    '  category: application',
    'detection:',
    detection,
    'level: low',
    '',
  ].join('\n');
}

/** One compilable rule and one rule per construct the compiler must refuse, each in its own file. */
function writeRuleDirectory(): string {
  const dir = tempDir('sightline-rules-');
  const files: Record<string, string> = {
    'good.yml': sigmaRule(
      'Good Rule',
      '11111111-1111-4111-8111-111111111111',
      "  selection:\n    message|contains: 'evil'\n  condition: selection",
    ),
    'unknown_modifier.yml': sigmaRule(
      'Unknown Modifier Rule',
      '22222222-2222-4222-8222-222222222222',
      "  selection:\n    message|foo: 'evil'\n  condition: selection",
    ),
    'undefined_search.yml': sigmaRule(
      'Undefined Search Rule',
      '33333333-3333-4333-8333-333333333333',
      "  selection:\n    message: 'evil'\n  condition: selection and missing_search",
    ),
    'sigma1_aggregation.yml': sigmaRule(
      'Sigma 1 Aggregation Rule',
      '44444444-4444-4444-8444-444444444444',
      "  selection:\n    message: 'evil'\n  condition: selection | count() by host > 5",
    ),
    'broken_yaml.yml': 'title: Broken YAML\ndetection: [unclosed\n  selection: {\n',
  };
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

interface JsonLine {
  status?: 'loaded' | 'unreachable' | 'rejected';
  file?: string;
  id?: string;
  construct?: string;
  message?: string;
  type?: string;
  loaded?: number;
  reachable?: number;
  unreachable?: number;
  detection?: number;
  correlation?: number;
  filters?: number;
  rejected?: number;
  by_logsource?: Record<string, { loaded: number; unreachable: number }>;
}

describe('sightline rules test', () => {
  let ruleDir: string;
  before(() => {
    ruleDir = writeRuleDirectory();
  });
  after(() => fs.rmSync(ruleDir, { recursive: true, force: true }));

  test('the bundled pack compiles: one loaded line per rule, the totals, nothing rejected, exit 0', async () => {
    const result = await runCli(['rules', 'test', 'rules']);
    assert.equal(result.code, 0, result.stderr);
    const output = lines(result.stdout);
    const total = BUNDLED.detection + BUNDLED.correlation;
    assert.equal(
      output.at(-1),
      `total: ${total} loaded (${total} reachable, 0 unreachable; ${BUNDLED.detection} detection, ${BUNDLED.correlation} correlation, 0 filters applied), 0 rejected`,
    );
    const loaded = output.slice(0, -1);
    assert.equal(loaded.length, total);
    for (const line of loaded) assert.match(line, /^loaded {4}rules\/\S+\.yml {2}[0-9a-f-]{36} {2}\S/);
    assert.equal(loaded.filter((line) => line.endsWith(' (correlation)')).length, BUNDLED.correlation);
    assert.ok(!result.stdout.includes('rejected  '), 'no rule is rejected');
  });

  test('broken rules are each rejected with the file and the construct; the good one loads; exit 1', async () => {
    const result = await runCli(['rules', 'test', ruleDir]);
    assert.equal(result.code, 1, result.stderr);
    assert.match(
      result.stdout,
      new RegExp(`^loaded {4}${ruleDir}/good\\.yml {2}11111111-1111-4111-8111-111111111111 {2}Good Rule$`, 'm'),
    );
    const rejected = (file: string, reason: RegExp) =>
      assert.match(
        result.stdout,
        new RegExp(`^rejected {2}${ruleDir}/${file}: ${reason.source}`, 'm'),
        `${file} rejected for ${reason}`,
      );
    rejected('unknown_modifier\\.yml', /.*unknown value modifier 'foo' on 'message\|foo'/);
    rejected('undefined_search\\.yml', /.*condition refers to 'missing_search', which the detection does not define/);
    rejected(
      'sigma1_aggregation\\.yml',
      /.*aggregation '\| count\(\) by host > 5' \(Sigma 1\) is not supported: write a correlation rule/,
    );
    rejected('broken_yaml\\.yml', /YAML: /);
    assert.equal(
      lines(result.stdout).at(-1),
      'total: 1 loaded (1 reachable, 0 unreachable; 1 detection, 0 correlation, 0 filters applied), 4 rejected',
    );

    const quiet = await runCli(['rules', 'test', '--quiet', ruleDir]);
    assert.equal(quiet.code, 1);
    assert.doesNotMatch(quiet.stdout, /^loaded/m, '--quiet leaves out the loaded rules');
    assert.equal(quiet.stdout.match(/^rejected {2}/gm)?.length, 4);
    assert.match(lines(quiet.stdout).at(-1)!, /^total: 1 loaded .* 4 rejected$/);
  });

  test('--json prints one JSON object per line with its status, then the totals', async () => {
    const result = await runCli(['rules', 'test', '--json', ruleDir]);
    assert.equal(result.code, 1, result.stderr);
    const parsed = lines(result.stdout).map((line) => JSON.parse(line) as JsonLine);
    const totals = parsed.at(-1)!;
    assert.deepEqual(totals, {
      loaded: 1,
      reachable: 1,
      unreachable: 0,
      rejected: 4,
      detection: 1,
      correlation: 0,
      filters: 0,
      by_logsource: { '/application/': { loaded: 1, unreachable: 0 } },
    });
    const rules = parsed.slice(0, -1);
    assert.ok(rules.every((line) => line.status === 'loaded' || line.status === 'rejected'));
    const byFile = new Map(rules.map((line) => [path.basename(line.file ?? ''), line]));
    assert.equal(byFile.size, 5);
    assert.deepEqual(
      { status: byFile.get('good.yml')?.status, type: byFile.get('good.yml')?.type, id: byFile.get('good.yml')?.id },
      { status: 'loaded', type: 'detection', id: '11111111-1111-4111-8111-111111111111' },
    );
    const constructs = Object.fromEntries(
      rules.filter((line) => line.status === 'rejected').map((line) => [path.basename(line.file!), line.construct]),
    );
    assert.deepEqual(constructs, {
      'unknown_modifier.yml': "modifier 'foo'",
      'undefined_search.yml': 'detection.condition',
      'sigma1_aggregation.yml': 'detection.condition',
      'broken_yaml.yml': 'yaml',
    });
    for (const line of rules.filter((entry) => entry.status === 'rejected'))
      assert.ok(line.message?.includes(line.file!), 'the message names the file');

    const bundled = await runCli(['rules', 'test', '--json', 'rules']);
    assert.equal(bundled.code, 0, bundled.stderr);
    const bundledLines = lines(bundled.stdout).map((line) => JSON.parse(line) as JsonLine);
    const { by_logsource: _byLogsource, ...bundledTotals } = bundledLines.at(-1)!;
    assert.deepEqual(bundledTotals, {
      loaded: 56,
      reachable: 56,
      unreachable: 0,
      ...BUNDLED,
      filters: 0,
      rejected: 0,
    });
    assert.ok(bundledLines.slice(0, -1).every((line) => line.status === 'loaded'));
  });

  test('a rule whose logsource no parsed input produces is reported unreachable, in text and JSON', async () => {
    const dir = tempDir('sightline-rules-');
    fs.writeFileSync(
      path.join(dir, 'router.yml'),
      [
        'title: Router Command',
        'id: 55555555-5555-4555-8555-555555555555',
        'logsource:',
        '  product: acme_router',
        '  service: cli',
        'detection:',
        '  selection:',
        "    command: 'erase startup-config'",
        '  condition: selection',
        '',
      ].join('\n'),
    );
    fs.writeFileSync(
      path.join(dir, 'good.yml'),
      sigmaRule('Good Rule', '11111111-1111-4111-8111-111111111111', "  selection:\n    message: 'x'\n  condition: selection"),
    );
    const text = await runCli(['rules', 'test', dir]);
    assert.equal(text.code, 0, 'unreachable is a warning, not a failure');
    assert.match(
      text.stdout,
      new RegExp(`^unreachable ${dir}/router\\.yml {2}55555555-5555-4555-8555-555555555555 {2}Router Command {2}\\[product:acme_router service:cli\\]$`, 'm'),
    );
    assert.match(lines(text.stdout).at(-1)!, /^total: 2 loaded \(1 reachable, 1 unreachable; /);
    const json = await runCli(['rules', 'test', '--json', dir]);
    const parsed = lines(json.stdout).map((line) => JSON.parse(line) as JsonLine);
    assert.equal(parsed.find((line) => line.id?.startsWith('5555'))?.status, 'unreachable');
    const totals = parsed.at(-1)!;
    assert.equal(totals.unreachable, 1);
    assert.deepEqual(totals.by_logsource, {
      '/application/': { loaded: 1, unreachable: 0 },
      'acme_router//cli': { loaded: 1, unreachable: 1 },
    });
  });

  test('a path that does not exist is rejected with a clear message and exit 1', async () => {
    const missing = path.join(tempDir('sightline-rules-'), 'no-such-rules');
    const result = await runCli(['rules', 'test', missing]);
    assert.equal(result.code, 1);
    assert.deepEqual(lines(result.stdout), [
      `rejected  ${missing}: no such file or directory`,
      'total: 0 loaded (0 reachable, 0 unreachable; 0 detection, 0 correlation, 0 filters applied), 1 rejected',
    ]);
    const json = await runCli(['rules', 'test', '--json', missing]);
    assert.equal(json.code, 1);
    assert.deepEqual(JSON.parse(lines(json.stdout)[0]!), {
      status: 'rejected',
      file: missing,
      construct: 'path',
      message: `${missing}: no such file or directory`,
    });
    // Alongside a good path, the missing one still fails the run.
    const mixed = await runCli(['rules', 'test', ruleDir + '/good.yml', missing]);
    assert.equal(mixed.code, 1);
    assert.match(mixed.stdout, /^total: 1 loaded .* 1 rejected$/m);
  });
});

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
