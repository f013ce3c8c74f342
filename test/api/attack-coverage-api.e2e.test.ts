// GET /v1/attack/coverage and its Navigator layer through HTTP on SQLite and PostgreSQL: a
// Sysmon process-creation event posted to the collector makes the techniques of the bundled
// Windows process rules live, and a domain controller's Security event those of the Windows
// Security rules; techniques covered only by Kubernetes audit rules stay silent;
// another tenant sees nothing live; the layer meets the layer format 4.5 specification; the
// logsource upsert keeps the newest time whatever order scale-out workers commit in.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { databaseTargets } from '../helpers/databases.js';
import {
  apiClient,
  bearer,
  detectionCaughtUp,
  expectProblem,
  ingest,
  issueToken,
  type ApiClient,
} from '../helpers/api.js';
import { apiSuite } from '../helpers/suite.js';
import { winlogbeatSysmonProcessCreation } from '../helpers/windows-events.js';
import { buildRecord } from '../fixtures/rule-pack/records.js';
import { assertNavigatorLayer } from '../helpers/navigator-layer.js';
import { loadAttackCatalogue } from '../../src/detection/attack.js';
import { recentLogsources, upsertLogsourceSightings } from '../../src/detection/logsource-store.js';

interface Coverage {
  attack_version: string;
  window: { days: number; since: string; until: string };
  counts: { techniques: Counts; subtechniques: Counts };
  tactics: { id: string; shortname: string; name: string; technique_ids: string[]; counts: Counts }[];
  techniques: {
    id: string;
    status: string;
    combined_status: string;
    parent: string | null;
    rules: { id: string; title: string; level: string; logsources: Logsource[]; live: boolean }[];
  }[];
  logsources_seen: (Logsource & { last_seen: string })[];
}
interface Counts {
  total: number;
  live: number;
  silent: number;
  uncovered: number;
}
interface Logsource {
  product: string | null;
  category: string | null;
  service: string | null;
}

const catalogue = loadAttackCatalogue();
const HOST = 'WS-017.corp.example';

for (const target of databaseTargets) {
  describe(`ATT&CK coverage API on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target);
    let acme: ApiClient;
    let globex: ApiClient;

    before(async () => {
      acme = apiClient(suite.server, bearer((await issueToken(suite.server, suite.acme, ['observations:read'])).value));
      globex = apiClient(
        suite.server,
        bearer((await issueToken(suite.server, suite.globex, ['observations:read'])).value),
      );
      await ingest(suite.server, [
        winlogbeatSysmonProcessCreation(
          HOST,
          'C:\\Windows\\System32\\notepad.exe',
          'notepad.exe C:\\Users\\alice\\todo.txt',
        ),
        // A domain controller's Security log: an AES service ticket for a file server.
        buildRecord('security_4769', {}, Date.now()),
      ]);
      await detectionCaughtUp(suite.server);
    });

    test('a Sysmon process start makes Windows process rules live; Kubernetes-only techniques stay silent', async () => {
      const response = await acme.get<Coverage>('/v1/attack/coverage');
      assert.equal(response.status, 200, JSON.stringify(response.body));
      const coverage = response.body;
      const technique = (id: string) => coverage.techniques.find((item) => item.id === id);
      const dumping = technique('T1003.001');
      assert.equal(dumping?.status, 'live');
      const windowsRule = dumping.rules.find((rule) => rule.logsources[0]?.product === 'windows');
      assert.equal(windowsRule?.live, true);
      assert.deepEqual(windowsRule.logsources, [{ product: 'windows', category: 'process_creation', service: null }]);
      assert.equal(technique('T1003')?.combined_status, 'live', 'the parent combines its sub-techniques');
      const exec = technique('T1609');
      assert.equal(exec?.status, 'silent');
      assert.ok(exec.rules.length > 0 && exec.rules.every((rule) => !rule.live));
      assert.ok(
        coverage.logsources_seen.some((seen) => seen.product === 'windows' && seen.category === 'process_creation'),
        JSON.stringify(coverage.logsources_seen),
      );
      assert.ok(!coverage.logsources_seen.some((seen) => seen.product === 'kubernetes'));
      assert.equal(coverage.window.days, 7);
    });

    test('the bundled Windows rules cover Kerberos, NTLM, SMB, RDP-tunnelling and BITS techniques; Security events make theirs live', async () => {
      const coverage = (await acme.get<Coverage>('/v1/attack/coverage')).body;
      const technique = (id: string) => coverage.techniques.find((item) => item.id === id);
      const roasting = technique('T1558.003');
      assert.equal(roasting?.status, 'live');
      const rule = roasting.rules.find((item) => item.title.includes('Kerberoasting'));
      assert.equal(rule?.live, true, JSON.stringify(roasting.rules));
      assert.deepEqual(rule.logsources, [{ product: 'windows', category: null, service: 'security' }]);
      // Password spraying: correlations, whose logsources are those of the rules they count.
      const spraying = technique('T1110.003');
      assert.ok(spraying?.rules.some((item) => item.title.startsWith('NTLM Failures') && item.live));
      // Named pipes (Sysmon 17/18) and BITS were never sent: covered, but silent.
      assert.equal(technique('T1559')?.status, 'silent');
      assert.equal(technique('T1197')?.status, 'silent');
      for (const id of ['T1558.004', 'T1550.002', 'T1572', 'T1021.002', 'T1570', 'T1069.001', 'T1087.001'])
        assert.equal(technique(id)?.status, 'live', id);
      for (const id of ['T1021.003', 'T1047', 'T1087.002']) assert.notEqual(technique(id)?.status, 'uncovered', id);
    });

    test('uncovered techniques are the ones no loaded rule names; tactics in matrix order with counts', async () => {
      const coverage = (await acme.get<Coverage>('/v1/attack/coverage')).body;
      const rules = await acme.get<{ total: number }>('/v1/rules?technique=T1001');
      assert.equal(rules.body.total, 0);
      assert.equal(coverage.techniques.find((item) => item.id === 'T1001')?.status, 'uncovered');
      assert.equal(coverage.techniques.length, catalogue.techniques().length);
      assert.deepEqual(
        coverage.tactics.map((tactic) => tactic.shortname),
        catalogue.tactics().map((tactic) => tactic.shortname),
      );
      assert.equal(coverage.tactics[0]?.shortname, 'reconnaissance');
      for (const tactic of coverage.tactics) {
        const { total, live, silent, uncovered } = tactic.counts;
        assert.equal(total, tactic.technique_ids.length);
        assert.equal(live + silent + uncovered, total);
      }
      const parents = coverage.techniques.filter((item) => item.parent === null);
      assert.equal(coverage.counts.techniques.total, parents.length);
      assert.equal(coverage.counts.techniques.live, parents.filter((item) => item.combined_status === 'live').length);
      assert.ok(coverage.counts.techniques.live >= 1);
    });

    test('another tenant’s telemetry counts for nothing: globex sees the same rules silent', async () => {
      const coverage = (await globex.get<Coverage>('/v1/attack/coverage')).body;
      assert.equal(coverage.techniques.find((item) => item.id === 'T1003.001')?.status, 'silent');
      assert.deepEqual(coverage.logsources_seen, []);
      assert.equal(coverage.counts.techniques.live, 0);
    });

    test('the Navigator layer is a 4.5 layer download whose techniques are the catalogue’s', async () => {
      const response = await acme.get<Record<string, unknown>>('/v1/attack/coverage/navigator-layer');
      assert.equal(response.status, 200);
      assert.match(
        response.headers.get('content-disposition') ?? '',
        /^attachment; filename="sightline-attack-coverage-acme-\d{4}-\d{2}-\d{2}\.json"$/,
      );
      const layer = assertNavigatorLayer(response.body);
      const ids = layer.techniques.map((item) => item.techniqueID);
      for (const id of ids) assert.ok(catalogue.technique(id), `${id} is in the catalogue`);
      assert.equal(new Set(ids).size, catalogue.techniques().length);
      const entry = (id: string) => layer.techniques.find((item) => item.techniqueID === id);
      assert.equal(entry('T1003.001')?.score, 2);
      assert.equal(entry('T1609')?.score, 1);
      assert.equal(entry('T1001')?.score, 0);
      assert.notEqual(entry('T1003.001')?.color, entry('T1609')?.color);
      assert.equal(entry('T1003')?.showSubtechniques, true);
      assert.ok(layer.legendItems.length === 3);
      assert.match(layer.name, /acme display name/);
    });

    test('coverage needs observations:read and takes no parameters', async () => {
      const cases = apiClient(suite.server, bearer((await issueToken(suite.server, suite.acme, ['cases:read'])).value));
      expectProblem(await cases.get('/v1/attack/coverage'), 403, 'permission_denied');
      expectProblem(await cases.get('/v1/attack/coverage/navigator-layer'), 403, 'permission_denied');
      const problem = expectProblem(await acme.get('/v1/attack/coverage?days=30'), 400, 'invalid_request');
      assert.match(problem.detail, /days/);
      expectProblem(await apiClient(suite.server).get('/v1/attack/coverage'), 401, 'unauthenticated');
    });

    test('the logsource upsert keeps the newest last and oldest first time, in any commit order', async () => {
      const db = suite.server.sightline.database.db;
      const tenantId = suite.globex.id;
      const sighting = (firstSeen: number, lastSeen: number) => ({
        tenantId,
        product: 'linux',
        category: '',
        service: 'sshd',
        firstSeen,
        lastSeen,
      });
      const now = Date.now();
      await upsertLogsourceSightings(db, [sighting(now - 5_000, now - 1_000)]);
      await upsertLogsourceSightings(db, [sighting(now - 9_000, now - 8_000)]);
      // Two workers committing at once (on PostgreSQL truly concurrent; SQLite serialises them).
      await Promise.all([
        db.transaction().execute((trx) => upsertLogsourceSightings(trx, [sighting(now - 7_000, now - 2_000)])),
        db.transaction().execute((trx) => upsertLogsourceSightings(trx, [sighting(now - 6_000, now - 3_000)])),
      ]);
      const seen = await recentLogsources(db, tenantId, now - 60_000);
      assert.deepEqual(seen, [
        { logsource: { product: 'linux', service: 'sshd' }, firstSeen: now - 9_000, lastSeen: now - 1_000 },
      ]);
      assert.deepEqual(await recentLogsources(db, tenantId, now), [], 'older sightings fall out of the window');
      assert.deepEqual(
        (await recentLogsources(db, suite.acme.id, now - 60_000)).filter((item) => item.logsource.service === 'sshd'),
        [],
        'one tenant’s rows are not another’s',
      );
    });
  });
}
