// The Elasticsearch bulk API on the collector address, driven by the official Elasticsearch
// client (its bulk helper, info and ping, gzip bodies) against a real server on each database:
// documents are stored under the addressed tenant only, a bad document is the only item refused
// and retried, a Winlogbeat Sysmon event is detected, and refusals come in Elasticsearch's shape.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Client, errors, HttpConnection } from '@elastic/elasticsearch';
import { databaseTargets } from '../helpers/databases.js';
import { apiClient, bearer, detectionCaughtUp, issueToken } from '../helpers/api.js';
import { apiSuite } from '../helpers/suite.js';
import { SIGMAHQ_RULES } from '../helpers/sigmahq.js';
import type { TestServer } from '../helpers/server.js';

const SHADOW_RULE = 'windows/process_creation/proc_creation_win_susp_shadow_copies_deletion.yml';
const SHADOW_RULE_ID = 'c947b146-0abc-4c87-9c64-b17e9d7274a2';

interface Found {
  records: { record: Record<string, unknown>; meta?: Record<string, unknown>; event_time: string }[];
}

/**
 * The client, addressed to a tenant's collector. `*.localhost` does not resolve in Node, so the
 * client connects to the loopback address and names the collector in its Host header.
 */
function esClient(server: TestServer, codeName: string, apiKey?: string): Client {
  return new Client({
    node: server.baseUrl,
    Connection: HttpConnection,
    headers: { host: `${codeName}-collector.localhost` },
    compression: true,
    maxRetries: 0,
    ...(apiKey ? { auth: { apiKey } } : {}),
  });
}

/** Sysmon event 1 as Winlogbeat 8 ships it: ECS fields beside `winlog` (Winlogbeat's exported fields). */
function winlogbeatSysmonProcess(commandLine: string, marker: string) {
  const now = new Date().toISOString();
  const image = 'C:\\Windows\\System32\\vssadmin.exe';
  return {
    '@timestamp': now,
    marker,
    agent: { type: 'winlogbeat', version: '8.15.0', name: 'WS-017' },
    ecs: { version: '8.0.0' },
    event: { code: '1', kind: 'event', provider: 'Microsoft-Windows-Sysmon', category: ['process'], type: ['start'] },
    host: { name: 'ws-017.corp.example', os: { family: 'windows' } },
    log: { level: 'information' },
    process: { executable: image, command_line: commandLine, pid: 4242, name: 'vssadmin.exe' },
    message: `Process Create:\nImage: ${image}\nCommandLine: ${commandLine}`,
    winlog: {
      api: 'wineventlog',
      channel: 'Microsoft-Windows-Sysmon/Operational',
      computer_name: 'WS-017.corp.example',
      event_id: '1',
      provider_name: 'Microsoft-Windows-Sysmon',
      record_id: 40_113,
      event_data: {
        RuleName: '-',
        UtcTime: now.replace('T', ' ').replace('Z', ''),
        ProcessGuid: '{5b4a3c2d-1e0f-6570-1a00-000000003b00}',
        ProcessId: '4242',
        Image: image,
        OriginalFileName: 'VSSADMIN.EXE',
        CommandLine: commandLine,
        CurrentDirectory: 'C:\\Windows\\system32\\',
        User: 'CORP\\alice',
        IntegrityLevel: 'High',
        ParentImage: 'C:\\Windows\\System32\\cmd.exe',
        ParentCommandLine: 'cmd.exe',
      },
    },
  };
}

for (const target of databaseTargets) {
  describe(`the Elasticsearch bulk API on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target, { detectionRulePaths: `${SIGMAHQ_RULES}/${SHADOW_RULE}` });
    let search: (codeName: 'acme' | 'globex', filters: Record<string, unknown>) => Promise<Found>;

    before(async () => {
      const readers = {
        acme: apiClient(suite.server, bearer((await issueToken(suite.server, suite.acme, ['telemetry:read'])).value)),
        globex: apiClient(
          suite.server,
          bearer((await issueToken(suite.server, suite.globex, ['telemetry:read'])).value),
        ),
      };
      search = async (codeName, filters) => {
        const answer = await readers[codeName].post<Found>('/v1/telemetry/search', { filters, limit: 100 });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        return answer.body;
      };
    });

    test('the bulk helper stores each document under the addressed tenant, timed by @timestamp', async () => {
      const marker = randomUUID();
      const times = ['2026-11-20T08:00:00.000Z', '2026-11-20T08:00:01.000Z', '2026-11-20T08:00:02.000Z'];
      const client = esClient(suite.server, 'acme');
      const encodings: unknown[] = [];
      client.diagnostic.on('request', (_error, event) =>
        encodings.push(event?.meta.request.params.headers?.['content-encoding']),
      );
      const stats = await client.helpers.bulk({
        datasource: times.map((time, n) => ({ '@timestamp': time, marker, n })),
        onDocument: () => ({ create: { _index: 'logs-app-default' } }),
      });
      assert.equal(stats.successful, 3);
      assert.equal(stats.failed, 0);
      assert.deepEqual(encodings, ['gzip'], 'the body went gzip-compressed');

      const found = await search('acme', { marker });
      assert.equal(found.records.length, 3);
      for (const record of found.records) {
        const n = record.record.n as number;
        assert.equal(record.event_time, times[n]);
        const meta = record.meta ?? {};
        assert.equal(meta._index, 'logs-app-default');
        assert.match(String(meta._id), /^[A-Za-z0-9_-]{20}$/);
      }
      assert.equal((await search('globex', { marker })).records.length, 0, 'nothing under another tenant');
    });

    test('a document that is not an object is the one item refused, and the only one the helper drops', async () => {
      const marker = randomUUID();
      const dropped: { status: number; error: unknown; document: unknown }[] = [];
      const client = esClient(suite.server, 'acme');
      const stats = await client.helpers.bulk({
        datasource: [{ marker, n: 0 }, ['not', 'an', 'object'], { marker, n: 2 }],
        onDocument: () => ({ index: { _index: 'mixed' } }),
        onDrop: (item) => dropped.push(item),
        retries: 2,
        wait: 10,
      });
      assert.equal(stats.successful, 2);
      assert.equal(stats.failed, 1);
      assert.equal(dropped.length, 1);
      assert.equal(dropped[0]!.status, 400);
      assert.deepEqual(dropped[0]!.document, ['not', 'an', 'object']);
      assert.equal((dropped[0]!.error as { type: string }).type, 'document_parsing_exception');
      const found = await search('acme', { marker });
      assert.deepEqual(found.records.map((record) => record.record.n).sort(), [0, 2]);
    });

    test('the answer is per item, as Elasticsearch gives it; updates and deletes are refused', async () => {
      const marker = randomUUID();
      const client = esClient(suite.server, 'acme');
      const answer = await client.bulk({
        index: 'default-index',
        operations: [
          { index: { _id: 'given-id' } },
          { marker },
          { delete: { _id: 'given-id' } },
          { update: { _id: 'given-id' } },
          { doc: { marker } },
        ],
      });
      assert.equal(answer.errors, true);
      const [stored, deleted, updated] = answer.items;
      assert.deepEqual(stored?.index, {
        _index: 'default-index',
        _id: 'given-id',
        _version: 1,
        result: 'created',
        _shards: { total: 1, successful: 1, failed: 0 },
        _seq_no: 0,
        _primary_term: 1,
        status: 201,
      });
      const refusal = { status: 400, error: { type: 'action_request_validation_exception' } };
      for (const [action, item] of [
        ['delete', deleted],
        ['update', updated],
      ] as const) {
        const result = item?.[action];
        assert.deepEqual({ status: result?.status, error: { type: result?.error?.type } }, refusal, action);
      }
      const found = await search('acme', { marker });
      assert.equal(found.records.length, 1);
      assert.deepEqual(found.records[0]!.meta, { _index: 'default-index', _id: 'given-id' });
    });

    test('info, ping and the probes shippers make at start are answered', async () => {
      const client = esClient(suite.server, 'acme');
      const info = await client.info();
      assert.equal(info.tagline, 'You Know, for Search');
      assert.match(info.version.number, /^8\.\d+\.\d+$/);
      assert.equal(info.version.build_flavor, 'default');
      assert.equal(await client.ping(), true);
      assert.equal((await client.license.get()).license.status, 'active');
      assert.equal(await client.indices.existsIndexTemplate({ name: 'filebeat-8.15.0' }), true);
      assert.equal((await client.indices.putIndexTemplate({ name: 'x', index_patterns: ['x-*'] })).acknowledged, true);
      assert.equal((await client.ilm.putLifecycle({ name: 'logs', policy: { phases: {} } })).acknowledged, true);
      assert.equal((await client.indices.create({ index: 'logs-2026' })).acknowledged, true);
      assert.equal((await client.cluster.health()).status, 'green');
      await assert.rejects(client.transport.request({ method: 'GET', path: '/_no_such_api' }), (error) => {
        assert.ok(error instanceof errors.ResponseError);
        assert.equal(error.statusCode, 404);
        assert.equal((error.body as { error: { type: string } }).error.type, 'resource_not_found_exception');
        return true;
      });
      // The collector's own path keeps its answer to a wrong method.
      await assert.rejects(client.transport.request({ method: 'GET', path: '/log_sink' }), (error) => {
        assert.ok(error instanceof errors.ResponseError);
        assert.equal(error.statusCode, 405);
        return true;
      });
      // Elsewhere than a collector address, `/` is still the web UI's.
      const ui = await fetch(`${suite.server.baseUrl}/`);
      assert.equal(ui.headers.get('x-elastic-product'), null);
    });

    test('a Winlogbeat Sysmon event sent through bulk is detected', async () => {
      const marker = randomUUID();
      const client = esClient(suite.server, 'acme');
      const answer = await client.bulk({
        operations: [
          { create: { _index: 'winlogbeat-8.15.0' } },
          winlogbeatSysmonProcess('vssadmin.exe delete shadows /all /quiet', marker),
        ],
      });
      assert.equal(answer.errors, false, JSON.stringify(answer));
      await detectionCaughtUp(suite.server, 60_000);
      const token = (await issueToken(suite.server, suite.acme, ['observations:read'])).value;
      const observations = await apiClient(suite.server, bearer(token)).get<{
        observations: { rule: { id: string } }[];
      }>('/v1/observations?limit=100');
      assert.ok(
        observations.body.observations.some((observation) => observation.rule.id === SHADOW_RULE_ID),
        JSON.stringify(observations.body),
      );
    });

    test('an unknown address and a missing or wrong key are refused as Elasticsearch refuses them', async () => {
      const admin = apiClient(suite.server, bearer((await issueToken(suite.server, suite.globex)).value));
      const created = await admin.post<{ value: string }>('/v1/ingest-keys', { name: 'winlogbeat' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const required = await admin.request('PUT', '/v1/collector/ingest-key-policy', {
        body: { require_ingest_key: true },
      });
      assert.equal(required.status, 200, JSON.stringify(required.body));

      for (const client of [
        esClient(suite.server, 'nobody'),
        esClient(suite.server, 'globex'),
        esClient(suite.server, 'globex', Buffer.from('id:sli_wrong').toString('base64')),
      ]) {
        await assert.rejects(client.bulk({ operations: [{ index: { _index: 'x' } }, { a: 1 }] }), (error) => {
          assert.ok(error instanceof errors.ResponseError, String(error));
          assert.equal(error.statusCode, 401);
          const body = error.body as { error: { type: string; root_cause: { type: string }[] }; status: number };
          assert.equal(body.error.type, 'security_exception');
          assert.equal(body.error.root_cause[0]?.type, 'security_exception');
          assert.equal(body.status, 401);
          assert.match(String(error.headers?.['www-authenticate']), /ApiKey/);
          assert.equal(error.headers?.['x-elastic-product'], 'Elasticsearch');
          return true;
        });
      }
      const marker = randomUUID();
      const keyed = esClient(suite.server, 'globex', Buffer.from(`beats:${created.body.value}`).toString('base64'));
      const answer = await keyed.bulk({ operations: [{ index: { _index: 'x' } }, { marker }] });
      assert.equal(answer.errors, false);
      assert.equal((await search('globex', { marker })).records.length, 1);
    });
  });
}
