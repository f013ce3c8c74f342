// Cases through HTTP on SQLite and PostgreSQL: observations grouped into cases (by device within
// 24 h, else by rule), the documented score and rescoring on a device's criticality, the status
// workflow, optimistic locking, bulk updates, merges, search filters and keyset pages, comments,
// reads that change nothing, and tenant isolation. Observations are written through
// POST /v1/observations by tenants the operator approved, at fixed times, so grouping windows are exact.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { closeOpened } from './helpers/suite.js';
import { databaseTargets, type TestDatabase } from './helpers/databases.js';
import { startServer, type TestServer } from './helpers/server.js';
import {
  apiClient,
  bearer,
  issueToken,
  seedTenant,
  signIn,
  problemBody,
  type ApiClient,
  type ApiResponse,
  type Problem,
  type Session,
} from './helpers/api.js';
import type { CaseCounts, CaseDetail, CaseSearch } from './helpers/responses.js';
import { allPermissions, rolePermissions } from '../src/identity/permissions.js';
import type { Tenant } from '../src/identity/tenant-service.js';
import type { CaseView, presentComment } from '../src/cases/case-service.js';
import type { ObservationView } from '../src/observations/observation-service.js';
import type { DeviceView } from '../src/devices/device-service.js';

type CommentView = ReturnType<typeof presentComment>;
interface HistoryView {
  at: string;
  actor: { type: string; id: string | null; label: string };
  action: string;
  changes: Record<string, unknown>;
}
type Level = 'informational' | 'low' | 'medium' | 'high' | 'critical';
/** One case's answer in a bulk PATCH /v1/cases. */
interface BulkResult {
  id: string;
  status: number;
  case?: CaseView;
  error?: { code: string; current_version?: number };
}

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const at = (hours: number) => new Date(T0 + hours * 3_600_000).toISOString();

/** The score as case-score.ts and the README document it, written out independently. */
function documentedScore(level: Level, observations: number, tactics: number, criticality = 1): number {
  const points = { informational: 5, low: 15, medium: 35, high: 55, critical: 75 }[level];
  const volume = Math.min(10, 2.5 * Math.log2(observations));
  const breadth = Math.min(15, 5 * (tactics - 1));
  return Math.max(0, Math.min(100, Math.round((points + volume + breadth) * criticality)));
}

const idsOf = (items: readonly { id: string }[]) => items.map((item) => item.id).sort();

for (const target of databaseTargets) {
  describe(`cases API on ${target.kind}`, { skip: target.skip }, () => {
    let database: TestDatabase;
    let server: TestServer;
    let operator: Session;
    let acmeTenant: Tenant;
    let acme: ApiClient;
    let sequence = 0;

    before(async () => {
      database = await target.create();
      server = await startServer(database);
      operator = await signIn(server, {
        tenant: null,
        role: 'operator',
        email: `operator-${target.kind}@platform.example`,
      });
      ({ tenant: acmeTenant, client: acme } = await writerFor('acme'));
    });
    after(() => closeOpened(server, database));

    /** A tenant approved to write observations, and an admin token (every permission) for it. */
    async function writerFor(codeName: string): Promise<{ tenant: Tenant; client: ApiClient }> {
      const tenant = await seedTenant(server, codeName);
      const approved = await operator.client.patch(
        `/v1/tenants/${codeName}`,
        { observation_write_approved: true },
        { 'sightline-tenant': codeName, 'x-csrf-token': operator.csrf },
      );
      assert.equal(approved.status, 200, JSON.stringify(approved.body));
      const client = apiClient(
        server,
        bearer((await issueToken(server, tenant, allPermissions, { name: `${codeName} admin` })).value),
      );
      return { tenant, client };
    }

    interface Observed {
      host?: string;
      rule_id?: string;
      level?: Level;
      techniques?: string[];
      /** first_time, in hours after T0. */
      hours?: number;
    }

    async function observe(client: ApiClient, input: Observed = {}): Promise<ObservationView> {
      sequence++;
      const response = await client.post<ObservationView>('/v1/observations', {
        external_id: `ext-${sequence}`,
        title: `Detection number ${sequence}`,
        level: input.level ?? 'high',
        techniques: input.techniques ?? ['T1059'],
        first_time: at(input.hours ?? 0),
        ...(input.host !== undefined ? { host: input.host } : {}),
        ...(input.rule_id !== undefined ? { rule_id: input.rule_id } : {}),
      });
      assert.equal(response.status, 201, JSON.stringify(response.body));
      return response.body;
    }

    /** The one case whose search text holds `text` (a host name used by one test only). */
    async function caseFor(client: ApiClient, text: string): Promise<CaseView> {
      const found = await client.post<CaseSearch>('/v1/cases', { text });
      assert.equal(found.status, 200, JSON.stringify(found.body));
      assert.equal(found.body.total, 1, `one case mentions ${text}: ${JSON.stringify(found.body.cases)}`);
      return found.body.cases[0]!;
    }

    async function detail(client: ApiClient, ref: string | number): Promise<CaseDetail> {
      const response = await client.get<CaseDetail>(`/v1/cases/${ref}`);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      return response.body;
    }

    async function history(client: ApiClient, ref: string | number): Promise<HistoryView[]> {
      const response = await client.get<{ history: HistoryView[] }>(`/v1/cases/${ref}/history?limit=500`);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      return response.body.history;
    }

    const patch = (client: ApiClient, item: { id: string; version: number }, changes: Record<string, unknown>) =>
      client.patch<CaseView>(`/v1/cases/${item.id}`, { version: item.version, ...changes });

    /** Asserts the status and the problem's code; returns the problem. */
    function problem(response: ApiResponse, status: number, code: string): Problem {
      assert.equal(response.status, status, JSON.stringify(response.body));
      const body = problemBody(response);
      assert.equal(body.code, code);
      return body;
    }

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

    test('search filters: status, severity, score, assignee, tags, device, technique, text, updated_after; sorts; total', async () => {
      const { tenant, client } = await writerFor('filters');
      const ana = `ana-${target.kind}@filters.example`;
      await signIn(server, { tenant, role: 'analyst', email: ana });
      await observe(client, { host: 'web-one', level: 'critical', techniques: ['T1059.004'] });
      await observe(client, { host: 'web-two', level: 'high', techniques: ['T1003.001'] });
      await observe(client, { host: 'db-one', level: 'medium', techniques: ['T1190'] });
      await observe(client, { host: 'db-two', level: 'low', techniques: ['T1059'] });
      await observe(client, { rule_id: 'no-host', level: 'informational', techniques: ['T1046'] });
      const all = (await client.post<CaseSearch>('/v1/cases', { sort: 'created', order: 'asc' })).body.cases;
      assert.deepEqual(
        all.map((item) => item.score),
        [75, 55, 35, 15, 5],
      );
      const [c1, c2, c3, c4] = all as [CaseView, CaseView, CaseView, CaseView, CaseView];
      const assigned = await patch(client, c1, {
        status: 'in_progress',
        assignee: ana.toUpperCase(),
        tags: ['PCI', 'web'],
      });
      assert.equal(assigned.status, 200, JSON.stringify(assigned.body));
      assert.equal(assigned.body.assignee!.email, ana);
      assert.deepEqual(assigned.body.tags, ['pci', 'web']);
      assert.equal((await patch(client, c2, { tags: ['web'] })).status, 200);
      assert.equal((await patch(client, c3, { status: 'closed', resolution: 'false_positive' })).status, 200);

      const numbers = async (filter: Record<string, unknown>): Promise<number[]> => {
        const response = await client.post<CaseSearch>('/v1/cases', { ...filter, limit: 100 });
        assert.equal(response.status, 200, `${JSON.stringify(filter)}: ${JSON.stringify(response.body)}`);
        assert.equal(response.body.total, response.body.cases.length);
        return response.body.cases.map((item) => item.number).sort((x, y) => x - y);
      };
      const expectations: [Record<string, unknown>, number[]][] = [
        [{ status: ['new'] }, [2, 4, 5]],
        [{ status: ['in_progress', 'closed'] }, [1, 3]],
        [{ severity: ['critical', 'high'] }, [1, 2]],
        [{ severity: ['low'] }, [4, 5]],
        [{ score_min: 55 }, [1, 2]],
        [{ score_max: 35 }, [3, 4, 5]],
        [{ score_min: 15, score_max: 55 }, [2, 3, 4]],
        [{ assignee: ana }, [1]],
        [{ assignee: assigned.body.assignee!.id }, [1]],
        [{ assignee: 'nobody@filters.example' }, []],
        [{ tags: ['web'] }, [1, 2]],
        [{ tags: ['WEB', 'pci'] }, [1]],
        [{ tags: ['absent'] }, []],
        [{ device_id: c3.devices[0]!.id }, [3]],
        [{ technique: 'T1059' }, [1, 4]],
        [{ technique: 'T1059.004' }, [1]],
        [{ technique: 'T1003' }, [2]],
        [{ text: 'db-' }, [3, 4]],
        [{ text: 'WEB-ONE' }, [1]],
        [{ text: 'pci' }, [1]],
        [{ text: '#5' }, [5]],
        [{ text: '100%_' }, []],
        [{ status: ['new'], technique: 'T1059' }, [4]],
      ];
      for (const [filter, expected] of expectations)
        assert.deepEqual(await numbers(filter), expected, JSON.stringify(filter));

      const newest = (await client.post<CaseSearch>('/v1/cases', { sort: 'updated', limit: 1 })).body.cases[0]!
        .updated_at;
      const deadline = Date.now() + 5_000;
      while (Date.now() <= Date.parse(newest) && Date.now() < deadline) await sleep(1);
      assert.equal((await patch(client, c4, { severity: 'high' })).status, 200);
      assert.deepEqual(await numbers({ updated_after: newest }), [4]);

      const order = async (sort: string, direction: string) =>
        (await client.post<CaseSearch>('/v1/cases', { sort, order: direction })).body.cases.map((item) => item.number);
      assert.deepEqual(await order('score', 'desc'), [1, 2, 3, 4, 5]);
      assert.deepEqual(await order('score', 'asc'), [5, 4, 3, 2, 1]);
      assert.deepEqual(await order('created', 'desc'), [5, 4, 3, 2, 1]);
      assert.equal((await order('updated', 'desc'))[0], 4);
      const page = await client.post<CaseSearch>('/v1/cases', { limit: 2 });
      assert.equal(page.body.total, 5);
      assert.equal(page.body.cases.length, 2);
      assert.equal(typeof page.body.next_cursor, 'string');
      problem(
        await client.post('/v1/cases', { limit: 2, sort: 'score', cursor: page.body.next_cursor }),
        400,
        'invalid_cursor',
      );
    });

    test('total counts up to track_total: exact (eq) up to it, the limit (gte) past it; true counts all, false none', async () => {
      const { client } = await writerFor('totals');
      for (const host of ['tot-1', 'tot-2', 'tot-3', 'tot-4', 'tot-5']) await observe(client, { host });
      const search = async (body: Record<string, unknown>) => {
        const response = await client.post<CaseSearch>('/v1/cases', body);
        assert.equal(response.status, 200, `${JSON.stringify(body)}: ${JSON.stringify(response.body)}`);
        return response.body;
      };
      const totalOf = async (body: Record<string, unknown>) => {
        const { total, total_relation } = await search(body);
        return { total, total_relation };
      };
      assert.deepEqual(await totalOf({}), { total: 5, total_relation: 'eq' }, 'the default limit is far above 5');
      assert.deepEqual(
        await totalOf({ track_total: 5 }),
        { total: 5, total_relation: 'eq' },
        'exactly the limit is still exact',
      );
      assert.deepEqual(await totalOf({ track_total: 4 }), { total: 4, total_relation: 'gte' });
      // 1 and true are told apart (the validator coerces types; neither may become the other).
      assert.deepEqual(await totalOf({ track_total: 1 }), { total: 1, total_relation: 'gte' });
      assert.deepEqual(await totalOf({ track_total: true }), { total: 5, total_relation: 'eq' });
      assert.deepEqual(await totalOf({ track_total: false }), { total: null, total_relation: null });
      // The limit bounds the count, never the page.
      assert.equal((await search({ track_total: 2 })).cases.length, 5);
      assert.equal((await search({ track_total: false, limit: 2 })).cases.length, 2);
      // Through each kind of filter: indexed text alone, a device with a status, a technique.
      assert.deepEqual(await totalOf({ text: 'tot-', track_total: 3 }), { total: 3, total_relation: 'gte' });
      assert.deepEqual(await totalOf({ text: 'TOT-', track_total: 10 }), { total: 5, total_relation: 'eq' });
      const one = (await search({ text: 'tot-3' })).cases[0]!;
      assert.deepEqual(await totalOf({ device_id: one.devices[0]!.id, status: ['new'], track_total: 1 }), {
        total: 1,
        total_relation: 'eq',
      });
      assert.deepEqual(await totalOf({ technique: 'T1059', track_total: 2 }), { total: 2, total_relation: 'gte' });
      for (const track_total of [0, 100_001, 'many', 2.5]) {
        problem(await client.post('/v1/cases', { track_total }), 400, 'invalid_request');
      }
    });

    test('GET /v1/cases/counts: every status, and the open cases per severity, exact; another tenant counts its own', async () => {
      const { client } = await writerFor('counts');
      const empty = {
        by_status: { new: 0, in_progress: 0, on_hold: 0, closed: 0 },
        open_by_severity: { low: 0, medium: 0, high: 0, critical: 0 },
      };
      const counts = async (who: ApiClient) => {
        const response = await who.get<CaseCounts>('/v1/cases/counts');
        assert.equal(response.status, 200, JSON.stringify(response.body));
        return response.body;
      };
      assert.deepEqual(await counts(client), empty);
      const levels: Level[] = ['critical', 'high', 'high', 'medium', 'low', 'informational'];
      for (const [index, level] of levels.entries()) await observe(client, { host: `count-${index}`, level });
      const cases = (await client.post<CaseSearch>('/v1/cases', { sort: 'created', order: 'asc' })).body.cases;
      assert.equal((await patch(client, cases[0]!, { status: 'in_progress' })).status, 200);
      assert.equal((await patch(client, cases[1]!, { status: 'closed', resolution: 'false_positive' })).status, 200);
      const held = await patch(client, cases[2]!, { status: 'in_progress' });
      assert.equal((await patch(client, held.body, { status: 'on_hold' })).status, 200);
      assert.equal((await patch(client, cases[3]!, { severity: 'critical' })).status, 200);
      assert.deepEqual(await counts(client), {
        by_status: { new: 3, in_progress: 1, on_hold: 1, closed: 1 },
        // The closed high case is not open; informational observations make low cases.
        open_by_severity: { low: 2, medium: 0, high: 1, critical: 2 },
      });
      const stranger = await seedTenant(server, 'counts-stranger');
      assert.deepEqual(
        await counts(apiClient(server, bearer((await issueToken(server, stranger, ['cases:read'])).value))),
        empty,
      );
    });

    test('assignee null: search finds the unassigned cases, and PATCH unassigns', async () => {
      const user = await signIn(server, { tenant: acmeTenant, role: 'analyst', email: 'cy@acme.example' });
      assert.ok(user.csrf);
      await observe(acme, { host: 'unassign-one' });
      await observe(acme, { host: 'unassign-two' });
      const one = await caseFor(acme, 'unassign-one');
      const two = await caseFor(acme, 'unassign-two');
      const assigned = await patch(acme, one, { assignee: 'cy@acme.example' });
      assert.equal(assigned.status, 200, JSON.stringify(assigned.body));
      const unassignedNow = await acme.post<CaseSearch>('/v1/cases', { text: 'unassign-', assignee: null });
      assert.equal(unassignedNow.status, 200, JSON.stringify(unassignedNow.body));
      assert.deepEqual(idsOf(unassignedNow.body.cases), [two.id], 'assignee null: the unassigned case');
      const unassigned = await patch(acme, assigned.body, { assignee: null });
      assert.equal(unassigned.status, 200, JSON.stringify(unassigned.body));
      assert.equal(unassigned.body.assignee, null);
      const entry = (await history(acme, one.id)).at(-1)!;
      assert.deepEqual(entry.changes.assignee, { from: assigned.body.assignee!.id, to: null });
      assert.deepEqual(
        idsOf((await acme.post<CaseSearch>('/v1/cases', { text: 'unassign-', assignee: null })).body.cases),
        idsOf([one, two]),
      );
    });

    test('keyset pages: no repeats and no gaps among existing cases while new cases are created concurrently', async () => {
      const { client } = await writerFor('paging');
      const levels: Level[] = ['high', 'low', 'critical', 'medium', 'high', 'informational', 'medium'];
      for (const [index, level] of levels.entries()) await observe(client, { rule_id: `page-rule-${index}`, level });
      let created = 0;
      for (const sort of ['created', 'score', 'updated']) {
        const existing = (await client.post<CaseSearch>('/v1/cases', { limit: 100 })).body.cases.map((item) => item.id);
        const seen: CaseView[] = [];
        let cursor: string | null = null;
        do {
          const [response]: [ApiResponse<CaseSearch>, ObservationView] = await Promise.all([
            client.post<CaseSearch>('/v1/cases', { sort, limit: 2, ...(cursor ? { cursor } : {}) }),
            observe(client, { rule_id: `concurrent-${sort}-${created++}`, level: 'high' }),
          ]);
          assert.equal(response.status, 200, JSON.stringify(response.body));
          assert.ok(response.body.cases.length <= 2);
          seen.push(...response.body.cases);
          cursor = response.body.next_cursor;
        } while (cursor);
        const ids = seen.map((item) => item.id);
        assert.equal(new Set(ids).size, ids.length, `${sort}: no case twice`);
        for (const id of existing) assert.ok(ids.includes(id), `${sort}: case ${id} was not skipped`);
        if (sort === 'score') {
          for (let i = 1; i < seen.length; i++)
            assert.ok(seen[i - 1]!.score >= seen[i]!.score, 'score order holds across pages');
        }
      }
    });

    test("comments: add, list, edit and delete your own; another user's answers 403; the history records them", async () => {
      const ana = await signIn(server, { tenant: acmeTenant, role: 'analyst', email: 'ana@acme.example' });
      const ben = await signIn(server, { tenant: acmeTenant, role: 'analyst', email: 'ben@acme.example' });
      const asAna = { 'x-csrf-token': ana.csrf };
      const asBen = { 'x-csrf-token': ben.csrf };
      await observe(acme, { host: 'cm-host' });
      const item = await caseFor(acme, 'cm-host');
      const base = `/v1/cases/${item.id}/comments`;
      const added = await ana.client.post<CommentView>(base, { body: 'Looking into it.' }, asAna);
      assert.equal(added.status, 201, JSON.stringify(added.body));
      assert.match(added.body.id, /^cmt_/);
      assert.equal(added.body.author.type, 'user');
      assert.equal(added.body.author.label, 'ana@acme.example');
      const other = await ben.client.post<CommentView>(`/v1/cases/${item.number}/comments`, { body: 'Me too.' }, asBen);
      assert.equal(other.status, 201, JSON.stringify(other.body));
      const bodies = async () =>
        (await acme.get<{ comments: CommentView[] }>(base)).body.comments.map((comment) => comment.body);
      assert.deepEqual(await bodies(), ['Looking into it.', 'Me too.']);

      const edited = await ana.client.patch<CommentView>(
        `${base}/${added.body.id}`,
        { body: 'Isolated the host.' },
        asAna,
      );
      assert.equal(edited.status, 200, JSON.stringify(edited.body));
      assert.equal(edited.body.body, 'Isolated the host.');
      problem(
        await ben.client.patch(`${base}/${added.body.id}`, { body: 'hijacked' }, asBen),
        403,
        'not_comment_author',
      );
      problem(await ben.client.delete(`${base}/${added.body.id}`, asBen), 403, 'not_comment_author');
      problem(await acme.patch(`${base}/${added.body.id}`, { body: 'by a token' }), 403, 'not_comment_author');
      assert.equal((await ben.client.delete(`${base}/${other.body.id}`, asBen)).status, 204);
      problem(await ben.client.delete(`${base}/${other.body.id}`, asBen), 404, 'not_found');
      assert.deepEqual(await bodies(), ['Isolated the host.']);
      assert.deepEqual(
        (await detail(acme, item.id)).comments.map((comment) => comment.body),
        ['Isolated the host.'],
      );

      const entries = (await history(acme, item.id)).filter((entry) => entry.action.startsWith('comment'));
      assert.deepEqual(
        entries.map((entry) => [entry.action, entry.actor.label]),
        [
          ['commented', 'ana@acme.example'],
          ['commented', 'ben@acme.example'],
          ['comment_edited', 'ana@acme.example'],
          ['comment_deleted', 'ben@acme.example'],
        ],
      );
      assert.deepEqual(entries[2]!.changes.body, { from: 'Looking into it.', to: 'Isolated the host.' });
      assert.deepEqual(entries[3]!.changes.body, { from: 'Me too.', to: null });
    });

    test('reading has no side effect: version, updated_at and history stay; summary is null', async () => {
      await observe(acme, { host: 'rd-host' });
      const listed = await caseFor(acme, 'rd-host');
      assert.equal(listed.summary, null);
      const reader = apiClient(
        server,
        bearer((await issueToken(server, acmeTenant, ['cases:read'], { name: 'reader' })).value),
      );
      const before = await detail(reader, listed.id);
      assert.equal(before.summary, null);
      const historyBefore = await history(reader, listed.id);
      for (let round = 0; round < 3; round++) {
        for (const path of [
          `/v1/cases/${listed.id}`,
          `/v1/cases/${listed.number}`,
          `/v1/cases/${listed.id}/history`,
          `/v1/cases/${listed.id}/comments`,
        ]) {
          assert.equal((await reader.get(path)).status, 200, path);
        }
        assert.equal((await reader.post('/v1/cases', { text: 'rd-host' })).status, 200);
      }
      const afterwards = await detail(reader, listed.id);
      assert.equal(afterwards.version, before.version);
      assert.equal(afterwards.updated_at, before.updated_at);
      assert.deepEqual(afterwards, before);
      assert.equal((await history(reader, listed.id)).length, historyBefore.length);
    });

    test('another tenant gets 404 for the case and its device, and cannot change them', async () => {
      await observe(acme, { host: 'xt-host' });
      const item = await caseFor(acme, 'xt-host');
      const device = item.devices[0]!;
      const globex = await seedTenant(server, 'globex');
      const outsider = apiClient(server, bearer((await issueToken(server, globex, allPermissions)).value));
      for (const path of [
        `/v1/cases/${item.id}`,
        `/v1/cases/${item.number}`,
        `/v1/cases/${item.id}/history`,
        `/v1/devices/${device.id}`,
      ]) {
        problem(await outsider.get(path), 404, 'not_found');
      }
      problem(
        await outsider.patch(`/v1/cases/${item.id}`, { version: item.version, status: 'in_progress' }),
        404,
        'not_found',
      );
      problem(await outsider.patch(`/v1/devices/${device.id}`, { criticality: 'low' }), 404, 'not_found');
      assert.equal((await outsider.post<CaseSearch>('/v1/cases', {})).body.total, 0);
      const unchanged = await detail(acme, item.id);
      assert.equal(unchanged.version, item.version);
      assert.equal(unchanged.devices[0]!.criticality, 'medium');
    });
  });
}
