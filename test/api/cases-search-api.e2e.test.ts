// Case search through HTTP on SQLite and PostgreSQL: filters, sorts and totals, counts, the
// unassigned filter, keyset pages under concurrent writes, comments, reads that change nothing, and
// tenant isolation. Grouping, scores, the workflow and merges: cases-api.e2e.test.ts.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { databaseTargets } from '../helpers/databases.js';
import type { TestServer } from '../helpers/server.js';
import { apiClient, bearer, issueToken, seedTenant, signIn, type ApiClient, type ApiResponse } from '../helpers/api.js';
import type { CaseCounts, CaseSearch } from '../helpers/responses.js';
import { idsOf, useCaseApi, type CommentView, type Level } from '../helpers/case-api-fixture.js';
import { allPermissions } from '../../src/identity/permissions.js';
import type { Tenant } from '../../src/identity/tenants/tenant-service.js';
import type { CaseView } from '../../src/cases/case-service.js';
import type { ObservationView } from '../../src/observations/observation-service.js';

for (const target of databaseTargets) {
  describe(`case search API on ${target.kind}`, { skip: target.skip }, () => {
    const fixture = useCaseApi(target);
    const { writerFor, observe, caseFor, detail, history, patch, problem } = fixture;
    let server: TestServer;
    let acme: ApiClient;
    let acmeTenant: Tenant;
    before(() => {
      ({ server, acme, acmeTenant } = fixture);
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
