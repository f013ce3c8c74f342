// GET /v1/rules says of every loaded rule whether a record Sightline parses can make it fire,
// and why not when none can: on a server that loads a package imported with `rules import`
// (SigmaHQ rules, some for logsources nothing Sightline parses produces) beside the bundled
// pack. `serve` names the same counts in its start-up line.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { databaseTargets, tempDir, type TestDatabase } from '../helpers/databases.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { apiClient, bearer, expectProblem, issueToken, seedTenant, type ApiClient } from '../helpers/api.js';
import { closeOpened } from '../helpers/suite.js';
import { freePort, stopChild, waitReady } from '../helpers/processes.js';
import { READY_TIMEOUT_MS, spawnServer } from '../helpers/ingest-load.js';
import { importRulePackage } from '../../src/detection/rule-import.js';
import { loadPipeline } from '../../src/telemetry/normalise/index.js';

import { SIGMAHQ } from '../helpers/sigmahq.js';
const SIGMA = SIGMAHQ;
const REACHABLE = [
  'rules/windows/process_creation/proc_creation_win_7zip_exfil_dmp_files.yml',
  'rules/cloud/aws/cloudtrail/aws_cloudtrail_bucket_deleted.yml',
];
const UNREACHABLE = {
  'rules/category/database/db_anomalous_query.yml': 'category: database',
  'rules/cloud/azure/privileged_identity_management/azure_pim_account_stale.yml': 'product: azure, service: pim',
};

interface RuleItem {
  id: string;
  title: string;
  file: string;
  reachable: boolean;
  unreachable_reason: string | null;
}
interface RuleList {
  rules: RuleItem[];
  total: number;
  loaded_count: number;
  unreachable_count: number;
  rejected_count: number;
  next_cursor: string | null;
}

/** A folder of SigmaHQ rule files, imported into the data directory as package `sigma-subset`. */
async function importSubset(dataDir: string): Promise<string> {
  const folder = tempDir('sightline-subset-');
  for (const file of [...REACHABLE, ...Object.keys(UNREACHABLE)]) {
    fs.mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
    fs.copyFileSync(path.join(SIGMA, file), path.join(folder, file));
  }
  await importRulePackage({ source: folder, name: 'sigma-subset', dataDir, pipeline: loadPipeline() });
  return folder;
}

for (const target of databaseTargets) {
  describe(`rules API reachability on ${target.kind}`, { skip: target.skip }, () => {
    let database: TestDatabase;
    let server: TestServer;
    let folder: string;
    let reader: ApiClient;
    before(async () => {
      database = await target.create();
      folder = await importSubset(database.dataDir);
      server = await startServer(database);
      const acme = await seedTenant(server, 'acme');
      reader = apiClient(server, bearer((await issueToken(server, acme, ['observations:read'])).value));
    });
    after(async () => {
      await closeOpened(server, database);
      fs.rmSync(folder, { recursive: true, force: true });
    });

    test('unreachable rules say why; the filter and the counts agree', async () => {
      const all = await reader.get<RuleList>('/v1/rules?limit=500');
      assert.equal(all.status, 200, JSON.stringify(all.body));
      const imported = all.body.rules.filter((rule) => rule.file.startsWith('rule-packages/sigma-subset/'));
      assert.equal(imported.length, REACHABLE.length + Object.keys(UNREACHABLE).length, 'the imported package loads');
      assert.equal(all.body.unreachable_count, Object.keys(UNREACHABLE).length);
      assert.equal(all.body.loaded_count, all.body.total);

      const unreachable = await reader.get<RuleList>('/v1/rules?reachable=false');
      assert.equal(unreachable.status, 200);
      assert.equal(unreachable.body.total, Object.keys(UNREACHABLE).length);
      assert.equal(unreachable.body.unreachable_count, Object.keys(UNREACHABLE).length);
      for (const rule of unreachable.body.rules) {
        assert.equal(rule.reachable, false);
        const source = rule.file.replace('rule-packages/sigma-subset/', '');
        const where = UNREACHABLE[source as keyof typeof UNREACHABLE];
        assert.ok(where, `${rule.file} is one of the unreachable ones`);
        assert.equal(
          rule.unreachable_reason,
          `No input Sightline parses produces this logsource (${where}); see docs/telemetry-mapping.md.`,
        );
      }

      const reachable = await reader.get<RuleList>('/v1/rules?reachable=true&limit=500');
      assert.equal(reachable.body.total, all.body.total - Object.keys(UNREACHABLE).length);
      assert.ok(reachable.body.rules.every((rule) => rule.reachable && rule.unreachable_reason === null));
      const names = reachable.body.rules.map((rule) => rule.file);
      for (const file of REACHABLE) assert.ok(names.includes(`rule-packages/sigma-subset/${file}`), file);
    });

    test('a reachable filter that is not true or false is refused, naming the parameter', async () => {
      const problem = expectProblem(await reader.get('/v1/rules?reachable=sometimes'), 400, 'invalid_request');
      assert.match(problem.detail, /reachable/);
    });
  });
}

describe('serve start-up line', () => {
  test(
    'serve logs loaded, reachable, unreachable and rejected counts once at start',
    { timeout: 180_000 },
    async () => {
      const database = await databaseTargets[0]!.create();
      const folder = await importSubset(database.dataDir);
      const port = await freePort();
      const server = spawnServer(database, port, 'info');
      try {
        await waitReady(server, `http://127.0.0.1:${port}/readyz`, READY_TIMEOUT_MS);
        const lines = server
          .stdout()
          .split('\n')
          .filter((line) => line.includes('"unreachable"'))
          .map((line) => JSON.parse(line) as { msg: string; loaded: number; unreachable: number; rejected: number });
        assert.equal(lines.length, 1, server.stdout());
        const [line] = lines;
        assert.equal(line!.unreachable, Object.keys(UNREACHABLE).length);
        assert.equal(line!.rejected, 0);
        assert.match(
          line!.msg,
          new RegExp(`^total: ${line!.loaded} loaded \\(${line!.loaded - 2} reachable, 2 unreachable\\), 0 rejected$`),
        );
      } finally {
        await stopChild(server);
        await database.cleanup();
        fs.rmSync(folder, { recursive: true, force: true });
      }
    },
  );
});
