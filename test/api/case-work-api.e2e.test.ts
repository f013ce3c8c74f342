// Work inside cases through HTTP on SQLite and PostgreSQL: templates applied by rule, technique,
// tag or by hand (tasks in order, tags, severity, once each, said in the history); tasks added,
// changed, completed and removed; a close with a required task open refused unless forced with a
// reason; the SLA policy's clocks on each case (breached, stopped, paused on hold); the watcher
// marking a breach once, sending case.sla_breached and feeding the breach filter; validation,
// permissions and tenant isolation.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { databaseTargets } from '../helpers/databases.js';
import { apiClient, bearer, issueToken, type ApiClient } from '../helpers/api.js';
import type { CaseSearch } from '../helpers/responses.js';
import { useCaseApi } from '../helpers/case-api-fixture.js';
import { rolePermissions } from '../../src/identity/permissions.js';
import { markBreaches } from '../../src/cases/work/sla-watcher.js';
import type { TaskView } from '../../src/cases/work/task-view.js';

interface Template {
  id: string;
  name: string;
  tasks: { title: string; required: boolean }[];
}

for (const target of databaseTargets) {
  describe(`case templates, tasks and SLAs on ${target.kind}`, { skip: target.skip }, () => {
    const fixture = useCaseApi(target);
    const { writerFor, observe, caseFor, detail, history, patch, problem } = fixture;
    let acme: ApiClient;
    let template: Template;
    before(async () => {
      acme = fixture.acme;
      const created = await acme.post<Template>('/v1/case-templates', {
        name: 'Web attack',
        description: 'For **web** attacks',
        applies_to: { rule_ids: ['web-attack-rule'], techniques: ['T1190'] },
        tasks: [
          { title: 'Check the WAF logs', required: true, assignee_role: 'analyst' },
          { title: 'Notify the application owner' },
        ],
        tags: ['web'],
        severity: 'critical',
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      template = created.body;
    });

    test('a template applies once by rule: its tasks in order, its tags and severity, and the history says why', async () => {
      await observe(acme, { host: 'tpl-web-01', rule_id: 'web-attack-rule', level: 'medium', techniques: ['T1059'] });
      const found = await caseFor(acme, 'tpl-web-01');
      const first = await detail(acme, found.id);
      assert.deepEqual(
        first.tasks.map((task) => [task.title, task.required, task.status, task.template?.name]),
        [
          ['Check the WAF logs', true, 'todo', 'Web attack'],
          ['Notify the application owner', false, 'todo', 'Web attack'],
        ],
      );
      assert.deepEqual(first.tags, ['web']);
      assert.equal(first.severity, 'critical');
      await observe(acme, { host: 'tpl-web-01', rule_id: 'web-attack-rule', hours: 1 });
      assert.equal((await detail(acme, found.id)).tasks.length, 2, 'a second match adds nothing');
      const applied = (await history(acme, found.id)).filter((entry) => entry.action === 'template_applied');
      assert.equal(applied.length, 1);
      assert.equal(applied[0]?.changes.reason, 'rule:web-attack-rule');
      assert.equal(applied[0].changes.template, 'Web attack');
    });

    test('a sub-technique matches its parent; a case of another rule and technique gets nothing', async () => {
      await observe(acme, { host: 'tpl-web-02', techniques: ['T1190'] });
      assert.equal((await detail(acme, (await caseFor(acme, 'tpl-web-02')).id)).tasks.length, 2);
      await observe(acme, { host: 'tpl-other-01', techniques: ['T1003.001'] });
      assert.deepEqual((await detail(acme, (await caseFor(acme, 'tpl-other-01')).id)).tasks, []);
    });

    test('closing with a required task open is refused with the tasks named, then allowed once it is done', async () => {
      const found = await caseFor(acme, 'tpl-web-01');
      const refused = await patch(acme, found, { status: 'closed', resolution: 'true_positive' });
      const body = problem(refused, 409, 'required_tasks_open');
      assert.match(body.detail, /Check the WAF logs/);
      assert.deepEqual(
        (body.open_tasks as { title: string }[]).map((task) => task.title),
        ['Check the WAF logs'],
      );
      const required = (await detail(acme, found.id)).tasks[0]!;
      const done = await acme.patch<TaskView>(`/v1/cases/${found.id}/tasks/${required.id}`, { status: 'done' });
      assert.equal(done.status, 200, JSON.stringify(done.body));
      assert.equal(done.body.status, 'done');
      assert.ok(done.body.completed_at);
      assert.match(done.body.completed_by ?? '', /acme admin/);
      const current = await detail(acme, found.id);
      const closed = await patch(acme, current, { status: 'closed', resolution: 'true_positive' });
      assert.equal(closed.status, 200, JSON.stringify(closed.body));
    });

    test('a close may be forced with a reason, which the history keeps', async () => {
      const found = await detail(acme, (await caseFor(acme, 'tpl-web-02')).id);
      problem(
        await patch(acme, found, { status: 'closed', resolution: 'false_positive', force: true }),
        409,
        'required_tasks_open',
      );
      const forced = await patch(acme, found, {
        status: 'closed',
        resolution: 'false_positive',
        force: true,
        force_reason: 'scanner noise, owner informed by phone',
      });
      assert.equal(forced.status, 200, JSON.stringify(forced.body));
      const entry = (await history(acme, found.id)).find((item) => item.changes.forced !== undefined);
      assert.deepEqual(entry?.changes.forced, { from: null, to: 'scanner noise, owner informed by phone' });
    });

    test('a tag applies its template; a template applies by hand once', async () => {
      const tagged = await acme.post<Template>('/v1/case-templates', {
        name: 'Ransomware',
        applies_to: { tags: ['ransomware'] },
        tasks: [{ title: 'Isolate the host', required: true }],
      });
      assert.equal(tagged.status, 201, JSON.stringify(tagged.body));
      await observe(acme, { host: 'tpl-tag-01', techniques: ['T1486'] });
      const found = await caseFor(acme, 'tpl-tag-01');
      const changed = await patch(acme, found, { tags: ['Ransomware'] });
      assert.equal(changed.status, 200, JSON.stringify(changed.body));
      assert.deepEqual(
        (await detail(acme, found.id)).tasks.map((task) => task.title),
        ['Isolate the host'],
      );

      const byHand = await acme.post<{ applied: boolean; tasks: TaskView[] }>(`/v1/cases/${found.id}/templates`, {
        template_id: template.id,
      });
      assert.equal(byHand.status, 200, JSON.stringify(byHand.body));
      assert.equal(byHand.body.applied, true);
      assert.deepEqual(
        byHand.body.tasks.map((task) => task.title),
        ['Isolate the host', 'Check the WAF logs', 'Notify the application owner'],
      );
      const again = await acme.post<{ applied: boolean }>(`/v1/cases/${found.id}/templates`, {
        template_id: template.id,
      });
      assert.equal(again.body.applied, false);
      const reasons = (await history(acme, found.id))
        .filter((entry) => entry.action === 'template_applied')
        .map((entry) => entry.changes.reason);
      assert.deepEqual(reasons.sort(), ['manual', 'tag:ransomware']);
    });

    test('tasks by hand: added with an assignee and due time, changed, removed; bad input is refused clearly', async () => {
      await observe(acme, { host: 'tpl-hand-01', techniques: ['T1021'] });
      const found = await caseFor(acme, 'tpl-hand-01');
      const added = await acme.post<TaskView>(`/v1/cases/${found.id}/tasks`, {
        title: 'Pull the VPN logs',
        assignee: 'nobody@acme.example',
      });
      problem(added, 400, 'unknown_assignee');
      const ok = await acme.post<TaskView>(`/v1/cases/${found.id}/tasks`, {
        title: 'Pull the VPN logs',
        due_at: '2030-01-01T00:00:00.000Z',
      });
      assert.equal(ok.status, 201, JSON.stringify(ok.body));
      assert.equal(ok.body.due_at, '2030-01-01T00:00:00.000Z');
      assert.equal(ok.body.template, null);
      problem(
        await acme.patch(`/v1/cases/${found.id}/tasks/${ok.body.id}`, { status: 'finished' }),
        400,
        'invalid_request',
      );
      problem(await acme.patch(`/v1/cases/${found.id}/tasks/task_nope`, { status: 'done' }), 404, 'not_found');
      const na = await acme.patch<TaskView>(`/v1/cases/${found.id}/tasks/${ok.body.id}`, { status: 'not_applicable' });
      assert.equal(na.body.status, 'not_applicable');
      assert.equal((await acme.delete(`/v1/cases/${found.id}/tasks/${ok.body.id}`)).status, 204);
      assert.deepEqual((await detail(acme, found.id)).tasks, []);
      const actions = (await history(acme, found.id)).map((entry) => entry.action);
      for (const action of ['task_added', 'task_updated', 'task_removed']) assert.ok(actions.includes(action), action);
    });

    test('templates are validated, named once, managed by admins only, and private to their tenant', async () => {
      problem(
        await acme.post('/v1/case-templates', { name: 'Bad', applies_to: { techniques: ['1190'] }, tasks: [] }),
        400,
        'invalid_request',
      );
      problem(await acme.post('/v1/case-templates', { name: 'Web attack', tasks: [] }), 409, 'template_name_taken');
      const analyst = apiClient(
        fixture.server,
        bearer((await issueToken(fixture.server, fixture.acmeTenant, [...rolePermissions.analyst])).value),
      );
      assert.equal((await analyst.get('/v1/case-templates')).status, 200);
      problem(await analyst.post('/v1/case-templates', { name: 'Mine', tasks: [] }), 403, 'permission_denied');
      problem(await analyst.put('/v1/sla-policy', {}), 403, 'permission_denied');

      const globex = (await writerFor('globex')).client;
      const listed = await globex.get<{ templates: Template[] }>('/v1/case-templates');
      assert.deepEqual(listed.body.templates, []);
      problem(await globex.get(`/v1/case-templates/${template.id}`), 404, 'not_found');
      const acmeCase = await caseFor(acme, 'tpl-hand-01');
      problem(await globex.get(`/v1/cases/${acmeCase.id}/tasks`), 404, 'not_found');
      problem(await globex.post(`/v1/cases/${acmeCase.id}/tasks`, { title: 'x' }), 404, 'not_found');
    });

    test("the SLA policy's clocks: breached, stopped on acknowledgement, paused on hold; the watcher marks a breach once", async () => {
      const policy = { critical: { acknowledge_s: 1, resolve_s: 3_600 }, high: { acknowledge_s: 1, resolve_s: 3_600 } };
      // A subscriber, so that breaches are written to the webhook outbox (its deliveries are not followed here).
      const hook = await acme.post('/v1/webhooks', {
        url: 'https://hooks.example.com/sightline',
        events: ['case.sla_breached'],
      });
      assert.equal(hook.status, 201, JSON.stringify(hook.body));
      const set = await acme.put('/v1/sla-policy', policy);
      assert.equal(set.status, 200, JSON.stringify(set.body));
      assert.deepEqual((await acme.get('/v1/sla-policy')).body, policy);
      await observe(acme, { host: 'sla-01', level: 'high', techniques: ['T1078'] });
      const found = await caseFor(acme, 'sla-01');
      const fresh = await detail(acme, found.id);
      assert.equal(fresh.sla?.acknowledge.breached, false);
      assert.equal(fresh.sla.resolve.target_s, 3_600);
      await sleep(1_300);
      const late = await detail(acme, found.id);
      assert.equal(late.sla?.acknowledge.breached, true);
      assert.ok((late.sla.acknowledge.remaining_s ?? 0) < 0);

      // The tenant's other new high and critical cases ran out too.
      assert.ok((await markBreaches(fixture.server.sightline.database.db, Date.now())) >= 1);
      assert.equal(await markBreaches(fixture.server.sightline.database.db, Date.now()), 0, 'once');
      const breached = (await history(acme, found.id)).filter((entry) => entry.action === 'sla_breached');
      assert.deepEqual(
        breached.map((entry) => entry.changes.clock),
        ['acknowledge'],
      );
      const filtered = await acme.post<CaseSearch>('/v1/cases', { sla_breached: true, text: 'sla-01' });
      assert.deepEqual(
        filtered.body.cases.map((item) => item.id),
        [found.id],
      );
      const events = await fixture.server.sightline.database.db
        .selectFrom('webhook_events')
        .select('subject')
        .where('type', '=', 'case.sla_breached')
        .where('subject', '=', found.id)
        .execute();
      assert.equal(events.length, 1);

      const working = await patch(acme, late, { status: 'in_progress' });
      assert.equal(working.status, 200, JSON.stringify(working.body));
      assert.ok(working.body.sla?.acknowledge.stopped_at);
      assert.equal(working.body.sla.acknowledge.remaining_s, null);
      const held = await patch(acme, working.body, { status: 'on_hold' });
      assert.equal(held.body.sla?.resolve.paused, true);
      const dueOnHold = Date.parse(held.body.sla.resolve.due_at);
      await sleep(300);
      const later = await detail(acme, found.id);
      assert.ok(Date.parse(later.sla!.resolve.due_at) > dueOnHold, 'the due time moves while on hold');
      const severityWithout = await patch(acme, later, { severity: 'low' });
      assert.equal(severityWithout.body.sla, null, 'a severity without a policy has no clocks');
    });
  });
}
