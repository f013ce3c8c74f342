// The investigation of a case through HTTP on SQLite and PostgreSQL, from Sysmon events (EventID
// 1 and 3): the process tree (parent → child, the observations' processes marked, connections
// beside their process, inferred parents), the timeline of observations and their evidence
// across the devices of a merged case, tenant isolation; and summary citations that rest on
// the right evidence: each key evidence point of the builtin summariser and of an LLM's answer
// cites its evidence row and exactly the observations whose triggering records it is.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { closeOpened } from '../helpers/suite.js';
import { databaseTargets, type TestDatabase } from '../helpers/databases.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { apiClient, bearer, issueToken, seedTenant, signIn, type ApiClient, type Session } from '../helpers/api.js';
import type { CaseDetail } from '../helpers/responses.js';
import { openAiCompletion, startFakeLlm, type FakeLlm, type FakeLlmReply } from '../helpers/fake-llm.js';
import { HEADINGS, approvedTenant, caseFor, sentPrompt, setTenant, type SentPrompt } from '../helpers/summaries.js';
import { INVESTIGATION as I, observationRecords, postInvestigationRecords } from '../helpers/investigation.js';
import type { SummaryView } from '../../src/summaries/summary-view.js';
import type { caseProcessTree, caseTimeline } from '../../src/cases/case-investigation.js';

type ProcessTree = Awaited<ReturnType<typeof caseProcessTree>>;
type Timeline = Awaited<ReturnType<typeof caseTimeline>>;
type Entry = Timeline['entries'][number];

const CITED = /\[((?:obs|proc|net)_[A-Za-z0-9]+)\]/g;
const citedIn = (line: string) => [...line.replace(/`[^`\n]*`/g, ' ').matchAll(CITED)].map((match) => match[1]!);
const isRow = (id: string) => id.startsWith('proc_') || id.startsWith('net_');

for (const target of databaseTargets) {
  describe(`case investigation API on ${target.kind}`, { skip: target.skip }, () => {
    let database: TestDatabase;
    let server: TestServer;
    let operator: Session;
    let llm: FakeLlm;
    let client: ApiClient;
    let globex: ApiClient;
    let answer: ((prompt: SentPrompt) => string) | undefined;
    let caseId = '';
    let otherCaseId = '';
    /** Observation id → its raw triggering records, as the observations API shows them. */
    const records = new Map<string, Record<string, unknown>[]>();

    /** The observations whose triggering records include the event a timeline entry is. */
    function supporting(entry: Entry): string[] {
      const matches = (record: Record<string, unknown>) =>
        entry.kind === 'process'
          ? record.EventID === 1 && Number(record.ProcessId) === entry.process.pid
          : record.EventID === 3 &&
            Number(record.DestinationPort) === entry.connection?.destination_port &&
            record.DestinationIp === entry.connection.destination_ip;
      return [...records]
        .filter(([, list]) => list.some(matches))
        .map(([id]) => id)
        .sort();
    }

    before(async () => {
      database = await target.create();
      llm = await startFakeLlm({
        kind: 'openai',
        respond: (request): FakeLlmReply => {
          const prompt = sentPrompt(request);
          return { body: openAiCompletion({ text: answer ? answer(prompt) : 'nothing', model: 'fake-gpt' }) };
        },
      });
      server = await startServer(database, { openaiBaseUrl: llm.baseUrl, openaiModel: 'fake-gpt' });
      operator = await signIn(server, {
        tenant: null,
        role: 'operator',
        email: `operator-${target.kind}@platform.example`,
      });
      ({ client } = await approvedTenant(server, operator, 'inv'));
      const other = await seedTenant(server, 'invglobex');
      globex = apiClient(server, bearer((await issueToken(server, other, ['cases:read'])).value));

      await postInvestigationRecords(server, client, 'inv', { main: 'inv-ws01', other: 'inv-ws02' });
      const main = await caseFor(client, 'inv-ws01');
      const second = await caseFor(client, 'inv-ws02');
      caseId = main.id;
      otherCaseId = second.id;
      for (const item of [main, second]) {
        const detail = await client.get<CaseDetail>(`/v1/cases/${item.id}`);
        for (const observation of detail.body.observations)
          records.set(observation.id, await observationRecords(client, observation.id));
      }
      const merged = await client.post('/v1/cases/merge', { target: main.id, sources: [second.id] });
      assert.equal(merged.status, 200, JSON.stringify(merged.body));
    });
    after(() => closeOpened(server, llm, database));

    test('the process tree: Word → PowerShell → notepad under an inferred explorer, the observations marked, connections beside PowerShell', async () => {
      const response = await client.get<ProcessTree>(`/v1/cases/${caseId}/process-tree`);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      const tree = response.body;
      assert.deepEqual(
        tree.devices.map((device) => device.host_name.toLowerCase()),
        ['inv-ws01', 'inv-ws02'],
        'both devices of the merged case',
      );
      const ws01 = tree.devices[0]!.processes;
      const byPid = (pid: number) => {
        const found = ws01.filter((node) => node.pid === pid);
        assert.equal(found.length, 1, `one node for PID ${pid}: ${JSON.stringify(ws01)}`);
        return found[0]!;
      };
      const powershell = byPid(I.powershellPid);
      const word = byPid(I.wordPid);
      const explorer = byPid(I.explorerPid);
      const notepad = byPid(I.notepadPid);
      assert.equal(powershell.name?.toLowerCase(), 'powershell.exe');
      assert.match(powershell.command_line ?? '', /-enc /);
      assert.equal(powershell.parent_id, word.id);
      assert.equal(notepad.parent_id, powershell.id);
      assert.equal(word.parent_id, explorer.id);
      assert.equal(explorer.parent_id, null);
      assert.equal(explorer.inferred, true, 'explorer has no creation record: inferred from Word');
      assert.equal(explorer.name?.toLowerCase(), 'explorer.exe');
      assert.equal(word.inferred, false);
      assert.match(powershell.id, /^proc_\d+$/);

      const processEntry = (pid: number): Entry => ({ kind: 'process', process: { pid } }) as Entry;
      assert.ok(supporting(processEntry(I.powershellPid)).length > 0, 'a rule fired on the PowerShell record');
      assert.deepEqual(powershell.observation_ids, supporting(processEntry(I.powershellPid)));
      assert.deepEqual(word.observation_ids, [], 'Word is context: no observation rests on it');
      assert.deepEqual(notepad.observation_ids, []);

      const byPort = new Map(powershell.connections.map((connection) => [connection.destination_port, connection]));
      assert.deepEqual([...byPort.keys()].sort(), [443, I.backdoorPort]);
      const backdoor = byPort.get(I.backdoorPort)!;
      assert.equal(backdoor.destination_ip, I.backdoorIp);
      assert.ok(backdoor.observation_ids.length > 0, 'a rule fired on the backdoor connection');
      assert.deepEqual(
        backdoor.observation_ids,
        supporting({ kind: 'connection', connection: backdoor } as unknown as Entry),
      );
      assert.deepEqual(byPort.get(443)!.observation_ids, []);

      // The second host logged only a connection: its process is inferred from it.
      const ws02 = tree.devices[1]!.processes;
      assert.equal(ws02.length, 1, JSON.stringify(ws02));
      assert.equal(ws02[0]!.inferred, true);
      assert.equal(ws02[0]!.name?.toLowerCase(), 'rundll32.exe');
      assert.deepEqual(
        ws02[0]!.connections.map((connection) => connection.destination_port),
        [I.otherBackdoorPort],
      );
    });

    test('the timeline: observations and their evidence across both devices, oldest first, each row naming exactly the observations it supports', async () => {
      const response = await client.get<Timeline>(`/v1/cases/${caseId}/timeline`);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      const { entries, truncated } = response.body;
      assert.equal(truncated, false);
      const times = entries.map((entry) => entry.time);
      assert.deepEqual(times, [...times].sort(), 'oldest first');
      assert.deepEqual(
        entries
          .filter((entry) => entry.kind === 'observation')
          .map((entry) => entry.id)
          .sort(),
        [...records.keys()].sort(),
        'every observation of both merged cases',
      );
      const rows = entries.filter((entry) => entry.kind !== 'observation');
      for (const row of rows) assert.deepEqual(row.observation_ids, supporting(row), JSON.stringify(row));
      // Only evidence: the Word and notepad starts and the web connection support no observation.
      assert.deepEqual(
        rows
          .map((row) =>
            row.kind === 'process' ? `process ${row.process.pid}` : `connection ${row.connection.destination_port}`,
          )
          .sort(),
        [`connection ${I.backdoorPort}`, `connection ${I.otherBackdoorPort}`, `process ${I.powershellPid}`].sort(),
      );
      assert.deepEqual([...new Set(rows.map((row) => row.host?.toLowerCase()))].sort(), ['inv-ws01', 'inv-ws02']);
      // At one instant an observation comes before the evidence it rests on.
      for (const row of rows) {
        const position = entries.indexOf(row);
        for (const id of row.observation_ids) {
          const observation = entries.findIndex((entry) => entry.id === id);
          if (entries[observation]!.time === row.time) assert.ok(observation < position);
        }
      }
    });

    test('tenant isolation and unknown cases: 404', async () => {
      for (const path of ['process-tree', 'timeline']) {
        const foreign = await globex.get(`/v1/cases/${caseId}/${path}`);
        assert.equal(foreign.status, 404, JSON.stringify(foreign.body));
        const missing = await client.get(`/v1/cases/case_doesnotexist00000000/${path}`);
        assert.equal(missing.status, 404);
      }
      const merged = await client.get<ProcessTree>(`/v1/cases/${otherCaseId}/process-tree`);
      assert.equal(merged.status, 200);
      assert.deepEqual(merged.body.devices, [], 'the merged-away case holds nothing now');
    });

    test('builtin summary: each key evidence point cites its row and exactly the observations that row supports', async () => {
      const timeline = (await client.get<Timeline>(`/v1/cases/${caseId}/timeline`)).body.entries;
      const rows = new Map(timeline.filter((entry) => entry.kind !== 'observation').map((entry) => [entry.id, entry]));
      const tree = (await client.get<ProcessTree>(`/v1/cases/${caseId}/process-tree`)).body.devices[0]!.processes;
      const context = [
        ...tree.filter((node) => node.pid === I.wordPid || node.pid === I.notepadPid).map((node) => node.id),
        ...tree.flatMap((node) => node.connections.filter((c) => c.destination_port === 443).map((c) => c.id)),
      ];
      assert.equal(context.length, 3);

      const response = await client.post<SummaryView>(`/v1/cases/${caseId}/summary`, {});
      assert.equal(response.status, 201, JSON.stringify(response.body));
      const summary = response.body;
      assert.equal(summary.provider, 'builtin');
      const points = summary.sections.find((section) => section.key === 'evidence')!.markdown.split('\n');
      const cited = new Set<string>();
      for (const point of points) {
        const ids = citedIn(point);
        const evidence = ids.filter(isRow);
        assert.equal(evidence.length, 1, `one evidence row per point: ${point}`);
        const row = rows.get(evidence[0]!);
        assert.ok(row, `${evidence[0]} is evidence of the case: ${point}`);
        assert.deepEqual(ids.filter((id) => !isRow(id)).sort(), supporting(row), point);
        assert.ok(!cited.has(row.id), `no point repeats ${row.id}`);
        cited.add(row.id);
      }
      assert.deepEqual([...cited].sort(), [...rows.keys()].sort(), 'every evidence row has its point');
      assert.ok(!context.some((id) => summary.text.includes(`[${id}]`)), 'context rows are not cited as evidence');
      assert.deepEqual(
        summary.evidence_citations.map((citation) => citation.evidence_id).sort(),
        [...rows.keys()].sort(),
      );
      for (const citation of summary.evidence_citations) assert.equal(citation.href, `/v1/cases/${caseId}/timeline`);
    });

    test("LLM summary: each observation's evidence is only its own rows; a point citing the wrong observation is corrected and flagged", async () => {
      await setTenant(operator, 'inv', { summary_provider: 'openai' });
      let sent: SentPrompt | undefined;
      const timeline = (await client.get<Timeline>(`/v1/cases/${caseId}/timeline`)).body.entries;
      const powershell = timeline.find((entry) => entry.kind === 'process')!;
      const backdoor = timeline.find((entry) => entry.connection?.destination_port === I.backdoorPort)!;
      const wrong = supporting(backdoor).find((id) => !supporting(powershell).includes(id));
      assert.ok(wrong, 'an observation the PowerShell start does not support');
      answer = (prompt) => {
        sent = prompt;
        return [
          ...HEADINGS.filter((heading) => heading !== 'Key evidence').map((heading) => `## ${heading}\nSee the case.`),
          '## Key evidence',
          `- Word started an encoded PowerShell [${powershell.id}] [${wrong}]`,
          `- PowerShell connected to a backdoor port [${backdoor.id}]`,
        ].join('\n');
      };
      const response = await client.post<SummaryView>(`/v1/cases/${caseId}/summary`, {});
      assert.equal(response.status, 201, JSON.stringify(response.body));
      assert.ok(sent);

      for (const observation of sent.data.observations) {
        const own = [...observation.evidence.process_events, ...observation.evidence.network_events].map((e) => e.id);
        for (const id of own)
          assert.ok(supporting(rows(id)).includes(observation.id), `${id} supports ${observation.id}`);
      }
      const activity = sent.data.devices.flatMap((device) => [
        ...device.activity.process_events.map((event) => event.process_name?.toLowerCase()),
        ...device.activity.network_events.map((event) => event.destination_port),
      ]);
      assert.ok(
        activity.includes('winword.exe') && activity.includes('notepad.exe') && activity.includes(443),
        JSON.stringify(activity),
      );

      const points = response.body.sections.find((section) => section.key === 'evidence')!.markdown.split('\n');
      assert.equal(points.length, 2);
      for (const point of points) {
        const ids = citedIn(point);
        const row = rows(ids.find(isRow)!);
        assert.deepEqual(ids.filter((id) => !isRow(id)).sort(), supporting(row), point);
      }
      assert.deepEqual(
        response.body.flags.map((flag) => flag.code),
        ['corrected_citation', 'corrected_citation'],
      );

      function rows(id: string): Entry {
        const found = timeline.find((entry) => entry.id === id);
        assert.ok(found, `${id} is in the timeline`);
        return found;
      }
    });
  });
}
