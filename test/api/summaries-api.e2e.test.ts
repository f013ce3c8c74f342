// AI case summaries through HTTP on SQLite and PostgreSQL: generating with the builtin provider
// and reading it back (reading never generates), the model cache and the stale marks, and what the
// model is sent (only the allowed data). An OpenAI-compatible fake stands in for the model.
// Prompt injection, feedback, the opt-out and permissions: summaries-guard-api.e2e.test.ts.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { databaseTargets } from '../helpers/databases.js';
import type { TestServer } from '../helpers/server.js';
import { apiClient, bearer, issueToken, signIn, type Session } from '../helpers/api.js';
import type { OpenApiDocument } from '../helpers/responses.js';
import { openAiCompletion } from '../helpers/fake-llm.js';
import {
  HEADINGS,
  approvedTenant,
  caseFor,
  observe,
  postRecords,
  sentPrompt,
  setTenant,
  wellFormedReply,
} from '../helpers/summaries.js';
import { MODEL, headingsOf, minutesAgo, problem, sorted, useSummariesApi } from '../helpers/summaries-api-fixture.js';
import type { SummaryView } from '../../src/summaries/summary-view.js';

for (const target of databaseTargets) {
  describe(`AI case summaries API on ${target.kind}`, { skip: target.skip }, () => {
    const fixture = useSummariesApi(target);
    const { replies, sentFor, generate, generated, current, detail, userId } = fixture;
    let server: TestServer;
    let operator: Session;
    before(() => {
      ({ server, operator } = fixture);
    });

    test('builtin provider (the default): six sections with cited observations; GET, the case and the list carry it; reading never generates', async () => {
      const { tenant, client } = await approvedTenant(server, operator, 'builtin');
      const first = await observe(client, { host: 'bi-host', techniques: ['T1059'], time: minutesAgo(90) });
      const second = await observe(client, {
        host: 'bi-host',
        techniques: ['T1003.001'],
        level: 'critical',
        time: minutesAgo(60),
      });
      const item = await caseFor(client, 'bi-host');
      assert.equal(item.summary, null);
      assert.equal(item.summary_unavailable, null);
      for (let round = 0; round < 3; round++) {
        problem(await client.get(`/v1/cases/${item.id}/summary`), 404, 'summary_not_generated');
        assert.equal((await detail(client, item.id)).summary, null);
        assert.equal((await caseFor(client, 'bi-host')).summary, null);
      }
      const rows = await server.sightline.database.db
        .selectFrom('case_summaries')
        .select('id')
        .where('case_id', '=', item.id)
        .execute();
      assert.deepEqual(rows, [], 'reading stored no summary');

      const ana = await signIn(server, { tenant, role: 'analyst', email: 'ana@builtin.example' });
      problem(await generate(ana.client, item.id), 403, 'csrf_token_invalid');
      const started = Date.now();
      const summary = await generated(ana.client, item.id, { 'x-csrf-token': ana.csrf });
      assert.match(summary.id, /^sum_/);
      assert.deepEqual(
        summary.sections.map((section) => section.heading),
        [...HEADINGS],
      );
      assert.deepEqual(
        summary.sections.map((section) => section.key),
        ['overview', 'timeline', 'affected', 'techniques', 'evidence', 'next_steps'],
      );
      for (const section of summary.sections)
        assert.ok(section.markdown.trim().length > 0 && !/not written/i.test(section.markdown), section.heading);
      assert.deepEqual(headingsOf(summary.text), [...HEADINGS], 'the text holds the sections in order');
      assert.equal(summary.provider, 'builtin');
      assert.equal(summary.is_llm, false);
      assert.equal(summary.model, 'sightline-builtin-1');
      assert.ok(
        Date.parse(summary.generated_at) >= started - 1_000 && Date.parse(summary.generated_at) <= Date.now() + 1_000,
        summary.generated_at,
      );
      assert.deepEqual(summary.requested_by, { id: await userId('ana@builtin.example'), label: 'ana@builtin.example' });
      assert.ok(
        summary.input_tokens > 0 && summary.output_tokens > 0,
        `tokens ${summary.input_tokens}/${summary.output_tokens}`,
      );
      assert.ok(Number.isInteger(summary.latency_ms) && summary.latency_ms >= 0);
      assert.equal(summary.from_cache, false);
      assert.equal(summary.stale, false);
      assert.deepEqual(summary.stale_reasons, []);
      assert.deepEqual(summary.flags, []);
      assert.match(summary.notice, /inaccurate/i);
      assert.deepEqual(
        sorted(summary.citations.map((citation) => citation.observation_id)),
        sorted([first.id, second.id]),
      );
      for (const citation of summary.citations) {
        assert.equal(citation.href, `/v1/observations/${citation.observation_id}`);
        assert.equal((await client.get(citation.href)).status, 200, citation.href);
        assert.ok(summary.text.includes(`[${citation.observation_id}]`));
      }
      assert.match(summary.sections[2]!.markdown, /bi-host/);
      assert.match(summary.sections[3]!.markdown, /T1003/);

      assert.deepEqual(await current(client, item.id), summary);
      assert.deepEqual((await detail(client, item.id)).summary, summary);
      assert.deepEqual((await caseFor(client, 'bi-host')).summary, summary);
      const reader = apiClient(
        server,
        bearer((await issueToken(server, tenant, ['cases:read'], { name: 'reader' })).value),
      );
      assert.deepEqual((await detail(reader, item.id)).summary, summary, 'cases:read shows a generated summary');
    });

    test('POST …/summary without a body (the body is optional: curl -X POST, a button) generates the summary', async () => {
      const { client } = await approvedTenant(server, operator, 'nobody');
      await observe(client, { host: 'nb-host' });
      const item = await caseFor(client, 'nb-host');
      const response = await client.post<SummaryView>(`/v1/cases/${item.id}/summary`);
      assert.equal(response.status, 201, `POST without a body: ${JSON.stringify(response.body)}`);
      assert.deepEqual(
        response.body.sections.map((section) => section.heading),
        [...HEADINGS],
      );
      const documented = (await client.get<OpenApiDocument>('/v1/openapi.json')).body.paths[
        '/v1/cases/{case_id}/summary'
      ]!.post!.requestBody as { required?: boolean } | undefined;
      assert.notEqual(documented?.required, true, 'the OpenAPI document does not require a body either');
    });

    test('cache: an unchanged case is answered from the cache; a change marks it stale (observations_added, status_changed, device_changed) and regenerating calls the model again', async () => {
      const { client } = await approvedTenant(server, operator, 'cache');
      await setTenant(operator, 'cache', { summary_provider: 'openai' });
      replies.set('cache', (prompt) => ({
        delayMs: 300,
        body: openAiCompletion({ text: wellFormedReply(prompt.data), model: MODEL }),
      }));
      await observe(client, { host: 'ca-host', time: minutesAgo(120) });
      const item = await caseFor(client, 'ca-host');

      const timed = async (): Promise<[SummaryView, number]> => {
        const began = performance.now();
        const summary = await generated(client, item.id);
        return [summary, performance.now() - began];
      };
      const [fresh, freshMs] = await timed();
      assert.equal(fresh.provider, 'openai');
      assert.equal(fresh.is_llm, true);
      assert.equal(fresh.model, MODEL);
      assert.equal(fresh.from_cache, false);
      assert.ok(freshMs >= 300, `the model took its 300 ms (${freshMs} ms)`);
      const [cached] = await timed();
      assert.equal(cached.from_cache, true);
      assert.equal(sentFor('cache').length, 1, 'the model saw exactly one request');
      assert.equal(cached.text, fresh.text);
      assert.notEqual(cached.id, fresh.id, 'a regeneration is a new summary');
      assert.deepEqual(await current(client, item.id), cached);

      const added = await observe(client, { host: 'ca-host', time: minutesAgo(110) });
      const marked = await current(client, item.id);
      assert.equal(marked.stale, true);
      assert.deepEqual(marked.stale_reasons, ['observations_added']);
      assert.deepEqual(
        (await detail(client, item.id)).summary?.stale_reasons,
        ['observations_added'],
        'the case shows it stale too',
      );
      const afterAdding = await generated(client, item.id);
      assert.equal(afterAdding.from_cache, false);
      assert.equal(sentFor('cache').length, 2, 'a changed case is sent again');
      assert.equal(afterAdding.stale, false);
      assert.deepEqual(afterAdding.stale_reasons, []);
      assert.ok(
        afterAdding.citations.some((citation) => citation.observation_id === added.id),
        'the new summary cites the new observation',
      );

      const { version } = await detail(client, item.id);
      assert.equal((await client.patch(`/v1/cases/${item.id}`, { version, status: 'in_progress' })).status, 200);
      assert.deepEqual((await current(client, item.id)).stale_reasons, ['status_changed']);
      const afterStatus = await generated(client, item.id);
      assert.equal(afterStatus.from_cache, false);
      assert.equal(sentFor('cache').length, 3);
      assert.equal(afterStatus.stale, false);

      const edited = await client.patch(`/v1/devices/${item.devices[0]!.id}`, { criticality: 'critical' });
      assert.equal(edited.status, 200, JSON.stringify(edited.body));
      const deviceMarked = await current(client, item.id);
      assert.equal(deviceMarked.stale, true);
      assert.deepEqual(deviceMarked.stale_reasons, ['device_changed']);
      assert.equal((await generated(client, item.id)).stale, false);
    });

    test('the model is sent only the allowed data: code name, case, devices with location and processes, observations; no display name, emails or comments', async () => {
      const { tenant, client } = await approvedTenant(server, operator, 'input');
      await setTenant(operator, 'input', { summary_provider: 'openai' });
      const time = minutesAgo(10);
      await postRecords(
        server,
        client,
        'input',
        [
          {
            type: 'process',
            timestamp: time,
            host: 'inp-host',
            host_ip: '81.2.69.142',
            endpoint_id: 'ep-inp',
            user: 'svc-backup',
            os: 'linux',
            process: {
              name: 'rsync',
              pid: 4242,
              executable: '/usr/bin/rsync',
              command_line: 'rsync -a /srv/data backup.example:/data',
            },
            parent: { name: 'cron', pid: 1, executable: '/usr/sbin/cron' },
          },
        ],
        'inp-host',
      );
      const observation = await observe(client, { host: 'inp-host', time });
      const item = await caseFor(client, 'inp-host');
      const email = 'ana.secret@input.example';
      const ana = await signIn(server, { tenant, role: 'analyst', email });
      const assigned = await client.patch(`/v1/cases/${item.id}`, {
        version: item.version,
        status: 'in_progress',
        assignee: email,
      });
      assert.equal(assigned.status, 200, JSON.stringify(assigned.body));
      const marker = `marker-${randomUUID()}`;
      assert.equal(
        (
          await ana.client.post(
            `/v1/cases/${item.id}/comments`,
            { body: `Checked the backup job ${marker}` },
            { 'x-csrf-token': ana.csrf },
          )
        ).status,
        201,
      );
      const shown = await detail(client, item.id);

      await generated(client, item.id);
      const sent = sentFor('input');
      assert.equal(sent.length, 1);
      const everything = JSON.stringify(sent[0]!.body);
      for (const secret of [
        'input display name',
        email,
        marker,
        'Checked the backup job',
        `operator-${target.kind}@platform.example`,
      ]) {
        assert.ok(!everything.includes(secret), `the model was not sent ${secret}`);
      }
      const { data } = sentPrompt(sent[0]!);
      assert.deepEqual(Object.keys(data), ['customer', 'case', 'devices', 'observations']);
      assert.deepEqual(data.customer, { code_name: 'input' });
      assert.equal(data.case.id, item.id);
      assert.equal(data.case.number, shown.number);
      assert.equal(data.case.score, shown.score);
      assert.equal(data.case.description, shown.description);
      assert.equal(data.case.status, 'in_progress');
      assert.deepEqual(
        data.observations.map((sentObservation) => sentObservation.id),
        [observation.id],
      );
      assert.deepEqual(
        data.devices.map((device) => device.host_name),
        ['inp-host'],
      );
      const [device] = data.devices;
      assert.deepEqual(
        device!.addresses.map(({ ip, country, city }) => ({ ip, country, city })),
        [{ ip: '81.2.69.142', country: 'United Kingdom', city: 'London' }],
      );
      assert.ok(
        device!.processes.some(
          (process) =>
            process.process_name === 'rsync' && process.pid === 4242 && process.executable_path === '/usr/bin/rsync',
        ),
        JSON.stringify(device!.processes),
      );
      // Written through the API without records, the observation has no evidence of its own; the
      // device's process near it is context on the device, not evidence of the observation.
      assert.deepEqual(data.observations[0]!.evidence, { process_events: [], network_events: [] });
      const activity = device!.activity.process_events;
      assert.ok(
        activity.some((event) => event.command_line === 'rsync -a /srv/data backup.example:/data'),
        JSON.stringify(activity),
      );
    });
  });
}
