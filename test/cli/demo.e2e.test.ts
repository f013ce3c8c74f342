// `sightline demo` against a real server: the command, run as a child process, sends its traffic
// to a tenant's collector address, and the detection thread turns it into observations of several
// rule families within seconds; an unknown tenant or an unreachable collector fail clearly.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { databaseTargets, type TestDatabase } from '../helpers/databases.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { apiClient, bearer, issueToken, seedTenant, type ApiClient, type ApiResponse } from '../helpers/api.js';
import type { Page } from '../helpers/responses.js';
import { freePort, repoRoot } from '../helpers/processes.js';
import { runCli } from '../helpers/cli.js';
import { loadPipeline } from '../../src/telemetry/normalise/index.js';
import { cliActor } from '../../src/identity/principal.js';
import { createIngestKey, setIngestKeyPolicy } from '../../src/collector/ingest-keys/ingest-key-service.js';
import { loadRuleDirectories } from '../../src/detection/sigma/index.js';
import { ATTACK_FAMILIES } from '../../src/demo/campaign.js';

/** Rule id → family, the folder of its file in the bundled pack (rules/sightline/<family>/). */
function ruleFamilies(): Map<string, string> {
  const pipeline = loadPipeline();
  const compilation = loadRuleDirectories([path.join(repoRoot, 'rules')], { placeholders: pipeline.placeholders });
  return new Map(
    [...compilation.rules, ...compilation.correlations].map((rule) => [
      rule.id,
      path.basename(path.dirname(rule.file)),
    ]),
  );
}

interface ListedObservation {
  rule: { id: string };
  host: string | null;
}

async function listObservations(reader: ApiClient): Promise<ListedObservation[]> {
  const all: ListedObservation[] = [];
  let cursor: string | undefined;
  do {
    const page: ApiResponse<Page<'observations', ListedObservation>> = await reader.get(
      `/v1/observations?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    assert.equal(page.status, 200, JSON.stringify(page.body));
    all.push(...page.body.observations);
    cursor = page.body.next_cursor ?? undefined;
  } while (cursor);
  return all;
}

for (const target of databaseTargets) {
  describe(`sightline demo on ${target.kind}`, { skip: target.skip }, () => {
    let database: TestDatabase;
    let server: TestServer;
    let reader: ApiClient;
    let caseReader: ApiClient;

    before(async () => {
      database = await target.create();
      server = await startServer(database);
      const acme = await seedTenant(server, 'acme');
      reader = apiClient(server, bearer((await issueToken(server, acme, ['observations:read'])).value));
      caseReader = apiClient(server, bearer((await issueToken(server, acme, ['cases:read', 'devices:read'])).value));
    });
    after(async () => {
      await server.close();
      await database.cleanup();
    });

    test('5 s of demo traffic to a tenant become observations of at least four rule families', async () => {
      const result = await runCli([
        'demo',
        '--url',
        server.baseUrl,
        '--tenant',
        'acme',
        '--duration',
        '5s',
        '--seed',
        '7',
        ...storageArgs(database),
      ]);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /tenant acme, Host acme-collector\.localhost:\d+/);
      assert.match(result.stdout, /^done: \d+ records in \d+ s, \d+ of them attacks/m);
      assert.match(result.stdout, /\/v1\/observations/);

      // The follow-up command works as printed: it names the server's storage.
      const printed = /TOKEN=\$\(npx sightline (.+)\)$/m.exec(result.stdout)?.[1];
      assert.ok(printed, result.stdout);
      const followUp = await runCli(shellWords(printed));
      assert.equal(followUp.code, 0, followUp.stderr);
      assert.match(followUp.stdout.trim(), /^slt_/);

      const families = ruleFamilies();
      const deadline = Date.now() + 30_000;
      let seen = new Set<string>();
      while (Date.now() < deadline) {
        const observations = await listObservations(reader);
        seen = new Set(
          observations.map((observation) => families.get(observation.rule.id) ?? `unknown rule ${observation.rule.id}`),
        );
        if (seen.size >= 4) break;
        await sleep(250);
      }
      assert.ok(seen.size >= 4, `observations of ${seen.size} families: ${[...seen].join(', ')}`);
      for (const family of seen) assert.ok((ATTACK_FAMILIES as readonly string[]).includes(family), family);
    });

    test('the demo traffic becomes cases with devices, locations, techniques and scores', async () => {
      // Runs after the test above sent the traffic. Grouping happens in the same transaction as
      // detection, but the detection thread may still be working through the backlog when the test above
      // saw its four families, so this waits for all it asserts rather than for the first case.
      interface CaseSummary {
        id: string;
        score: number;
        techniques: { id: string; name: string | null }[];
        devices: { host_name: string }[];
      }
      interface Address {
        scope: string;
        country: string | null;
        city: string | null;
      }
      const deadline = Date.now() + 30_000;
      let located: { kase: CaseSummary; address: Address } | undefined;
      let cases: CaseSummary[] = [];
      while (Date.now() < deadline && !(located && cases.length >= 3)) {
        located = undefined;
        const page = await caseReader.post<Page<'cases', CaseSummary>>('/v1/cases', { sort: 'score', limit: 100 });
        assert.equal(page.status, 200, JSON.stringify(page.body));
        cases = page.body.cases;
        for (const kase of cases.filter(
          (item) => item.devices.length > 0 && item.techniques.length > 0 && item.score > 0,
        )) {
          const detail = await caseReader.get<{ devices: { addresses: Address[] }[] }>(`/v1/cases/${kase.id}`);
          const address = detail.body.devices
            .flatMap((device) => device.addresses)
            .find((item) => item.country !== null);
          if (address) {
            located = { kase, address };
            break;
          }
        }
        if (!(located && cases.length >= 3)) await sleep(500);
      }
      assert.ok(
        located,
        `a case on a located device: ${JSON.stringify(cases.map((item) => [item.id, item.devices, item.score]))}`,
      );
      assert.equal(located.address.scope, 'public');
      assert.ok(located.address.city, 'the location has a city');
      assert.ok(located.kase.techniques.every((technique) => /^T\d{4}/.test(technique.id)));
      assert.ok(cases.length >= 3, `cases: ${cases.length}`);
      assert.ok(
        cases.every((item, i) => i === 0 || cases[i - 1]!.score >= item.score),
        'sorted by score',
      );
      const devices = await caseReader.get<Page<'devices', { host_name: string }>>('/v1/devices?has_open_case=true');
      assert.equal(devices.status, 200);
      assert.ok(
        devices.body.devices.some((device) => device.host_name === 'web-01'),
        JSON.stringify(devices.body.devices.map((device) => device.host_name)),
      );
    });

    test("an unknown tenant stops the demo with the collector's problem", async () => {
      const result = await runCli(['demo', '--url', server.baseUrl, '--tenant', 'nosuch', '--duration', '2s']);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /error \(ingest_key_required\): .*answered 401: this collector needs an ingest key/);
    });

    test('a tenant requiring an ingest key gets the demo with its key (SIGHTLINE_INGEST_KEY), and refuses it without', async () => {
      const keyed = await seedTenant(server, 'keyed');
      const ctx = { db: server.sightline.database.db, tenantId: keyed.id, actor: cliActor, ip: null };
      const { value } = await createIngestKey(ctx, { name: 'demo' });
      await setIngestKeyPolicy(ctx, true);
      const args = ['demo', '--url', server.baseUrl, '--tenant', 'keyed', '--duration', '1s', '--rate', '5'];
      const refused = await runCli(args, { SIGHTLINE_INGEST_KEY: '' });
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /error \(ingest_key_required\)/);
      const sent = await runCli(args, { SIGHTLINE_INGEST_KEY: value });
      assert.equal(sent.code, 0, sent.stderr);
    });
  });
}

test('an unreachable collector stops the demo with exit code 1 and says so', async () => {
  const port = await freePort();
  const result = await runCli(['demo', '--url', `http://127.0.0.1:${port}`, '--duration', '2s']);
  assert.equal(result.code, 1);
  assert.match(
    result.stderr,
    new RegExp(`cannot reach the collector at http://127\\.0\\.0\\.1:${port}/log_sink: .*ECONNREFUSED`),
  );
});

test('invalid options are refused before anything is sent', async () => {
  const duration = await runCli(['demo', '--duration', 'soon']);
  assert.equal(duration.code, 1);
  assert.match(duration.stderr, /--duration must be a span/);
  const tenant = await runCli(['demo', '--tenant', 'Bad_Name']);
  assert.equal(tenant.code, 1);
  assert.match(tenant.stderr, /invalid_code_name/);
});

/** What the server's storage is, as the CLI takes it. */
function storageArgs(database: { dataDir: string; databaseUrl: string }): string[] {
  return database.databaseUrl === '' ? ['--data', database.dataDir] : ['--database', database.databaseUrl];
}

/** Splits a printed command line as a POSIX shell would: spaces, and '…' quoting. */
function shellWords(line: string): string[] {
  return [...line.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map((match) =>
    match[1] !== undefined ? match[1].replace(/'\\''/g, "'") : (match[2] ?? ''),
  );
}
