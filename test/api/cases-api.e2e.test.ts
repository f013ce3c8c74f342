// Cases through HTTP on SQLite and PostgreSQL: observations grouped into cases (by device within
// 24 h, else by rule), the documented score and rescoring on a device's criticality, the status
// workflow, optimistic locking, bulk updates and merges. Observations are written through
// POST /v1/observations by tenants the operator approved, at fixed times, so grouping windows are
// exact. Search, counts, pages, comments and tenant isolation: cases-search-api.e2e.test.ts.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { databaseTargets } from '../helpers/databases.js';
import type { TestServer } from '../helpers/server.js';
import { apiClient, bearer, issueToken, type ApiClient } from '../helpers/api.js';
import type { CaseSearch } from '../helpers/responses.js';
import { at, idsOf, useCaseApi, type CommentView, type Level } from '../helpers/case-api-fixture.js';
import { rolePermissions } from '../../src/identity/permissions.js';
import type { CaseView } from '../../src/cases/case-service.js';
import type { DeviceView } from '../../src/devices/device-service.js';

/** One case's answer in a bulk PATCH /v1/cases. */
interface BulkResult {
  id: string;
  status: number;
  case?: CaseView;
  error?: { code: string; current_version?: number };
}

/** The score as case-score.ts and docs/cases.md documents it, written out independently. */
function documentedScore(level: Level, observations: number, tactics: number, criticality = 1): number {
  const points = { informational: 5, low: 15, medium: 35, high: 55, critical: 75 }[level];
  const volume = Math.min(10, 2.5 * Math.log2(observations));
  const breadth = Math.min(15, 5 * (tactics - 1));
  return Math.max(0, Math.min(100, Math.round((points + volume + breadth) * criticality)));
}

for (const target of databaseTargets) {
  describe(`cases API on ${target.kind}`, { skip: target.skip }, () => {
    const fixture = useCaseApi(target);
    const { writerFor, observe, caseFor, detail, history, patch, problem } = fixture;
    let server: TestServer;
    let acme: ApiClient;
    before(() => {
      ({ server, acme } = fixture);
    });

    test('grouping: one device within 24 h is one case; later, another device or another rule opens a new one; numbers count 1, 2, 3…', async () => {
      const { client } = await writerFor('grouping');
      const first = await observe(client, { host: 'alpha', hours: 0 });
      // Devices are told apart by host name, case-insensitively.
      const sameDevice = await observe(client, { host: 'ALPHA', hours: 2 });
      const dayLater = await observe(client, { host: 'alpha', hours: 2 + 25 });
      const otherDevice = await observe(client, { host: 'beta', hours: 1 });
      const ruleX = await observe(client, { rule_id: 'rule-x', hours: 0 });
      const ruleXAgain = await observe(client, { rule_id: 'rule-x', hours: 3 });
      const ruleY = await observe(client, { rule_id: 'rule-y', hours: 3 });
      // Exactly 24 h after the last observation is still within the window.
      const gamma = await observe(client, { host: 'gamma', hours: 0 });
      const gammaDayLater = await observe(client, { host: 'gamma', hours: 24 });

      const listed = await client.post<CaseSearch>('/v1/cases', { sort: 'created', order: 'asc' });
      assert.equal(listed.status, 200, JSON.stringify(listed.body));
      const cases = listed.body.cases;
      assert.equal(listed.body.total, 6);
      assert.deepEqual(
        cases.map((item) => item.number),
        [1, 2, 3, 4, 5, 6],
      );
      const expected = [
        [first, sameDevice],
        [dayLater],
        [otherDevice],
        [ruleX, ruleXAgain],
        [ruleY],
        [gamma, gammaDayLater],
      ];
      for (const [index, item] of cases.entries()) {
        const byNumber = await detail(client, item.number);
        assert.equal(byNumber.id, item.id, `GET /v1/cases/${item.number} is case ${item.id}`);
        assert.equal(item.status, 'new');
        assert.equal(item.observation_count, expected[index]!.length, `case ${item.number}`);
        assert.deepEqual(idsOf(byNumber.observations), idsOf(expected[index]!), `case ${item.number}'s observations`);
        assert.deepEqual((await detail(client, item.id)).observations, byNumber.observations);
      }
      const [alpha, alphaLater, beta, noHost] = cases;
      assert.deepEqual(
        alpha!.devices.map((device) => device.host_name),
        ['alpha'],
      );
      assert.equal(alpha!.first_observation_at, at(0));
      assert.equal(alpha!.last_observation_at, at(2));
      assert.deepEqual(alphaLater!.devices, alpha!.devices, 'the later case is on the same device');
      assert.notEqual(beta!.devices[0]!.id, alpha!.devices[0]!.id);
      assert.deepEqual(noHost!.devices, []);
      problem(await client.get('/v1/cases/7'), 404, 'not_found');
    });

    test('scores follow the documented formula; a criticality change rescores the open case (devices:write only)', async () => {
      const { tenant, client } = await writerFor('scoring');
      await observe(client, { host: 'sc-critical', level: 'critical' });
      const critical = await caseFor(client, 'sc-critical');
      assert.equal(critical.score, 75, 'one critical observation on a medium device');
      assert.equal(critical.severity, 'critical');

      await observe(client, { host: 'sc-high', level: 'high' });
      assert.equal((await caseFor(client, 'sc-high')).score, 55, 'one high observation');
      await observe(client, { host: 'sc-high', level: 'high', hours: 1 });
      const high = await caseFor(client, 'sc-high');
      assert.equal(high.score, 58, 'two high observations: round(55 + 2.5)');
      assert.equal(high.score, documentedScore('high', 2, 1));
      assert.equal(high.severity, 'high');

      await observe(client, { host: 'sc-tactics', level: 'high', techniques: ['T1059'] });
      await observe(client, { host: 'sc-tactics', level: 'high', techniques: ['T1003.001'], hours: 1 });
      const twoTactics = await caseFor(client, 'sc-tactics');
      assert.deepEqual([...twoTactics.tactics].sort(), ['credential-access', 'execution']);
      assert.equal(twoTactics.score, high.score + 5, 'a second tactic adds 5: round(55 + 2.5 + 5)');

      await observe(client, { host: 'sc-info', level: 'informational' });
      const info = await caseFor(client, 'sc-info');
      assert.equal(info.score, 5);
      assert.equal(info.severity, 'low', 'informational cases are low');

      // T1078 spans four tactics: breadth is capped at 15; the level stays the highest (critical).
      await observe(client, { host: 'sc-critical', level: 'low', techniques: ['T1078'], hours: 1 });
      const killChain = await caseFor(client, 'sc-critical');
      assert.equal(killChain.score, 93, 'round(75 + 2.5 + 15)');
      assert.equal(killChain.score, documentedScore('critical', 2, 5));
      assert.equal(killChain.severity, 'critical');

      const device = high.devices[0]!;
      assert.equal(device.criticality, 'medium');
      const analyst = apiClient(
        server,
        bearer((await issueToken(server, tenant, rolePermissions.analyst, { name: 'analyst' })).value),
      );
      const denied = await analyst.patch(`/v1/devices/${device.id}`, { criticality: 'critical' });
      assert.equal(problem(denied, 403, 'permission_denied').required_permission, 'devices:write');
      assert.equal((await caseFor(client, 'sc-high')).score, 58, 'a refused edit rescores nothing');

      const historyBefore = await history(client, high.id);
      const edited = await client.patch<DeviceView>(`/v1/devices/${device.id}`, { criticality: 'critical' });
      assert.equal(edited.status, 200, JSON.stringify(edited.body));
      assert.equal(edited.body.criticality, 'critical');
      const rescored = await caseFor(client, 'sc-high');
      assert.equal(rescored.score, 81, 'round(57.5 × 1.4)');
      assert.equal(rescored.score, documentedScore('high', 2, 1, 1.4));
      assert.equal(rescored.version, high.version + 1);
      assert.equal(rescored.devices[0]!.criticality, 'critical');
      const historyAfter = await history(client, high.id);
      assert.equal(historyAfter.length, historyBefore.length + 1);
      const entry = historyAfter.at(-1)!;
      assert.equal(entry.action, 'rescored');
      assert.deepEqual(entry.changes.score, { from: 58, to: 81 });

      // Later observations on the device are scored with its criticality too.
      await observe(client, { host: 'sc-high', level: 'high', hours: 2 });
      assert.equal((await caseFor(client, 'sc-high')).score, documentedScore('high', 3, 1, 1.4));
      // And the score is clamped to 100.
      assert.equal(
        (await client.patch(`/v1/devices/${killChain.devices[0]!.id}`, { criticality: 'critical' })).status,
        200,
      );
      assert.equal((await caseFor(client, 'sc-critical')).score, 100, 'round(92.5 × 1.4) clamped');
    });

    test('workflow: every allowed transition succeeds; forbidden ones answer 409 with the allowed ones; closing needs a resolution', async () => {
      await observe(acme, { host: 'wf-main' });
      await observe(acme, { host: 'wf-quick' });
      let item = await caseFor(acme, 'wf-main');
      const step = async (changes: Record<string, unknown>): Promise<void> => {
        const response = await patch(acme, item, changes);
        assert.equal(
          response.status,
          200,
          `${item.status} → ${JSON.stringify(changes)}: ${JSON.stringify(response.body)}`,
        );
        assert.equal(response.body.status, changes.status);
        assert.equal(response.body.version, item.version + 1);
        item = response.body;
      };
      const refused = async (status: string, allowed: string[]): Promise<void> => {
        const response = await patch(acme, item, { status });
        assert.deepEqual(
          problem(response, 409, 'invalid_status_transition').allowed,
          allowed,
          `${item.status} → ${status}`,
        );
        const unchanged = await detail(acme, item.id);
        assert.equal(unchanged.version, item.version, 'a refused change changes nothing');
        assert.equal(unchanged.status, item.status);
      };

      await refused('on_hold', ['in_progress', 'closed']);
      await step({ status: 'in_progress' });
      await refused('new', ['on_hold', 'closed']);
      await step({ status: 'on_hold' });
      await refused('new', ['in_progress', 'closed']);
      await step({ status: 'in_progress' });
      problem(await patch(acme, item, { status: 'closed' }), 400, 'resolution_required');
      assert.equal((await detail(acme, item.id)).status, 'in_progress');

      await step({ status: 'closed', resolution: 'true_positive', closing_comment: 'Contained; keys rotated.' });
      assert.equal(item.resolution, 'true_positive');
      assert.equal(item.closing_comment, 'Contained; keys rotated.');
      assert.ok(item.closed_at);
      const comments = (await acme.get<{ comments: CommentView[] }>(`/v1/cases/${item.id}/comments`)).body.comments;
      assert.deepEqual(
        comments.map((comment) => comment.body),
        ['Contained; keys rotated.'],
      );
      await refused('on_hold', ['in_progress']);
      await refused('new', ['in_progress']);

      await step({ status: 'in_progress' });
      assert.equal(item.resolution, null, 'reopening clears the resolution');
      assert.equal(item.closing_comment, null);
      assert.equal(item.closed_at, null);
      const reopened = (await history(acme, item.id)).at(-1)!;
      assert.deepEqual(reopened.changes.resolution, { from: 'true_positive', to: null }, 'the history keeps it');
      const closedAt = reopened.changes.closed_at as { from: unknown; to: unknown };
      assert.match(
        String(closedAt.from),
        /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/,
        'times in changes are ISO 8601',
      );
      assert.equal(closedAt.to, null);
      await step({ status: 'on_hold' });
      await step({ status: 'closed', resolution: 'false_positive' });
      assert.equal(item.resolution, 'false_positive');

      item = await caseFor(acme, 'wf-quick');
      await step({ status: 'closed', resolution: 'inconclusive' });
      assert.equal(item.resolution, 'inconclusive');
    });

    test('optimistic locking: a stale version answers 409 version_conflict with current_version and changes nothing', async () => {
      await observe(acme, { host: 'lk-host' });
      const read = await caseFor(acme, 'lk-host');
      const first = await patch(acme, read, { tags: ['first'] });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      const stale = await patch(acme, read, { status: 'in_progress', tags: ['second'] });
      assert.equal(problem(stale, 409, 'version_conflict').current_version, read.version + 1);
      const current = await detail(acme, read.id);
      assert.equal(current.version, first.body.version);
      assert.equal(current.updated_at, first.body.updated_at);
      assert.equal(current.status, 'new');
      assert.deepEqual(current.tags, ['first']);
      // New observations move the version too.
      await observe(acme, { host: 'lk-host', hours: 1 });
      const behind = await patch(acme, first.body, { status: 'in_progress' });
      assert.equal(problem(behind, 409, 'version_conflict').current_version, first.body.version + 1);
    });

    test('bulk PATCH /v1/cases answers each case in order: 200, 409 for a stale version, 404 for an unknown case', async () => {
      await observe(acme, { host: 'bk-one' });
      await observe(acme, { host: 'bk-two' });
      const one = await caseFor(acme, 'bk-one');
      const two = await caseFor(acme, 'bk-two');
      assert.equal((await patch(acme, two, { tags: ['moved'] })).status, 200);
      const response = await acme.patch<{ results: BulkResult[] }>('/v1/cases', {
        cases: [
          { id: String(one.number), version: one.version, status: 'in_progress', tags: ['bulk'] },
          { id: two.id, version: two.version, status: 'in_progress' },
          { id: 'case_doesnotexist', version: 1, status: 'in_progress' },
        ],
      });
      assert.equal(response.status, 200, JSON.stringify(response.body));
      const results = response.body.results;
      assert.deepEqual(
        results.map((result) => [result.id, result.status]),
        [
          [String(one.number), 200],
          [two.id, 409],
          ['case_doesnotexist', 404],
        ],
      );
      assert.equal(results[0]!.case?.status, 'in_progress');
      assert.deepEqual(results[0]!.case.tags, ['bulk']);
      assert.equal(results[1]!.error?.code, 'version_conflict');
      assert.equal(results[1]!.error.current_version, two.version + 1);
      assert.equal(results[2]!.error?.code, 'not_found');
      assert.equal((await detail(acme, one.id)).status, 'in_progress');
      assert.equal((await detail(acme, two.id)).status, 'new', 'the stale item was not applied');
    });

    test('merge: observations move to the target; sources close as duplicates; later observations join the target', async () => {
      const a = await observe(acme, { host: 'mg-target', hours: 0 });
      const b = await observe(acme, { host: 'mg-target', hours: 1 });
      const c = await observe(acme, { host: 'mg-source', level: 'critical', techniques: ['T1003.001'], hours: 2 });
      const target = await caseFor(acme, 'mg-target');
      const untagged = await caseFor(acme, 'mg-source');
      const tagged = await patch(acme, untagged, { tags: ['from-source'] });
      assert.equal(tagged.status, 200, JSON.stringify(tagged.body));
      const source = tagged.body;
      const merged = await acme.post<CaseView>('/v1/cases/merge', {
        target: target.id,
        sources: [String(source.number)],
      });
      assert.equal(merged.status, 200, JSON.stringify(merged.body));
      assert.equal(merged.body.id, target.id);
      assert.equal(merged.body.observation_count, target.observation_count + source.observation_count);
      assert.equal(merged.body.score, documentedScore('critical', 3, 2));
      assert.equal(merged.body.severity, 'critical');
      assert.equal(merged.body.version, target.version + 1);
      assert.deepEqual(merged.body.tags, ['from-source'], 'tags move too');
      assert.deepEqual(merged.body.techniques.map((technique: { id: string }) => technique.id).sort(), [
        'T1003.001',
        'T1059',
      ]);
      assert.deepEqual(
        idsOf(
          (await acme.post<CaseSearch>('/v1/cases', { technique: 'T1003', text: 'mg-', status: ['new'] })).body.cases,
        ),
        [target.id],
        'the technique index follows the merge',
      );
      assert.deepEqual(merged.body.devices.map((device: { host_name: string }) => device.host_name).sort(), [
        'mg-source',
        'mg-target',
      ]);
      assert.deepEqual(idsOf((await detail(acme, target.id)).observations), idsOf([a, b, c]));

      const closed = await detail(acme, source.id);
      assert.equal(closed.status, 'closed');
      assert.equal(closed.resolution, 'duplicate');
      assert.equal(closed.merged_into, target.id);
      assert.ok(closed.closed_at);
      assert.deepEqual(closed.observations, []);
      // Everything moved: the source holds no observations, devices, techniques or tags any more.
      assert.equal(closed.observation_count, 0);
      assert.deepEqual(closed.devices, []);
      assert.deepEqual(closed.techniques, []);
      assert.deepEqual(closed.tags, []);
      assert.deepEqual(
        idsOf((await acme.post<CaseSearch>('/v1/cases', { technique: 'T1003', text: 'mg-' })).body.cases),
        [target.id],
        'a technique search finds only the target',
      );
      const targetEntry = (await history(acme, target.id)).at(-1)!;
      assert.equal(targetEntry.action, 'merged');
      assert.deepEqual(targetEntry.changes.observation_count, { from: 2, to: 3 });
      assert.deepEqual(
        (targetEntry.changes.sources as { id: string }[]).map((item) => item.id),
        [source.id],
      );
      const sourceEntry = (await history(acme, source.id)).at(-1)!;
      assert.equal(sourceEntry.action, 'merged_into');
      assert.deepEqual(sourceEntry.changes.target, { id: target.id, number: target.number });
      // Both sides read consistently: the merged case says where its contents went, by number.
      assert.deepEqual(closed.merge, { into: { id: target.id, number: target.number }, from: [] });
      assert.match(
        closed.description,
        new RegExp(`^Merged into case #${target.number} on \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} UTC: its observations`),
      );
      assert.deepEqual((await detail(acme, target.id)).merge, {
        into: null,
        from: [{ id: source.id, number: source.number }],
      });
      // Newest first on request, times in the changes as ISO 8601 (never epoch milliseconds).
      const newest = await acme.get<{ history: { action: string; changes: Record<string, unknown> }[] }>(
        `/v1/cases/${source.id}/history?order=desc&limit=1`,
      );
      assert.equal(newest.status, 200, JSON.stringify(newest.body));
      assert.equal(newest.body.history[0]!.action, 'merged_into');
      problem(await acme.post('/v1/cases/merge', { target: target.id, sources: [source.id] }), 400, 'invalid_merge');
      problem(await acme.post('/v1/cases/merge', { target: source.id, sources: [target.id] }), 400, 'invalid_merge');
      // A merged case stays closed: its contents live in the target.
      const reopen = await acme.patch(`/v1/cases/${source.id}`, { version: closed.version, status: 'in_progress' });
      const refusal = problem(reopen, 409, 'invalid_status_transition');
      assert.deepEqual(refusal.allowed, []);
      assert.equal(refusal.merged_into, target.id);

      const later = await observe(acme, { host: 'mg-source', hours: 3 });
      const grown = await detail(acme, target.id);
      assert.equal(grown.observation_count, 4);
      assert.ok(
        grown.observations.some((observation) => observation.id === later.id),
        'the later observation joined the target',
      );
      assert.equal(
        (await acme.post<CaseSearch>('/v1/cases', { text: 'mg-source' })).body.total,
        2,
        'no new case was opened',
      );
    });
  });
}
