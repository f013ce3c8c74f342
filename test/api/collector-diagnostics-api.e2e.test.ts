// Onboarding a forwarder: what the collector heard per tenant (senders by User-Agent and source
// address, refusals by code with the latest example), a test record sent through the real
// collector path (by holders of ingest_keys:write, audited), and the Host header that names the tenant never misrouting a record — two
// Host headers are refused, and every spelling of an address reaches its tenant or a 404.
import { recordSeq } from '../../src/core/record-ids.js';
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { databaseTargets } from '../helpers/databases.js';
import { apiSuite } from '../helpers/suite.js';
import { apiClient, bearer, expectProblem, issueToken, type ApiClient } from '../helpers/api.js';
import type { AuditEvent } from '../../src/identity/audit/audit-service.js';
import { appRecord, ndjson } from '../helpers/factories.js';

interface Diagnostics {
  since: string;
  senders: {
    protocol: string;
    user_agent: string;
    source_address: string;
    requests: number;
    records: number;
    last_seen_at: string;
  }[];
  rejections: {
    code: string;
    count: number;
    last_at: string;
    last_source_address: string;
    last_user_agent: string;
    last_detail: string;
  }[];
}

interface TestRecord {
  status: number;
  stored: boolean;
  record_id: string | null;
  round_trip_ms: number;
  collector_url: string;
  detail: string | null;
}

/** Raw bytes, for what node:http would not send (two Host headers); answers the status line's code. */
function rawStatus(port: number, request: string): Promise<number> {
  return new Promise((resolve, reject) => {
    // Written, not ended: the server closes the connection after its answer (Connection: close).
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Number(text.split(' ')[1])));
  });
}

for (const target of databaseTargets) {
  describe(`collector onboarding on ${target.kind}`, { skip: target.skip }, () => {
    // Loopback is the trusted proxy, so X-Forwarded-For names each test sender's address.
    const suite = apiSuite(target, { trustProxy: '127.0.0.1' });
    let acme: ApiClient;
    let globex: ApiClient;
    before(async () => {
      acme = apiClient(suite.server, bearer((await issueToken(suite.server, suite.acme, ['telemetry:read'])).value));
      globex = apiClient(
        suite.server,
        bearer((await issueToken(suite.server, suite.globex, ['telemetry:read'])).value),
      );
    });

    const send = (body: string, from: string, userAgent: string, host = 'acme-collector.localhost') =>
      suite.server.post(body, {
        'content-type': 'application/json',
        host,
        'user-agent': userAgent,
        'x-forwarded-for': from,
      });

    test('senders and refusals of the last 24 hours, each tenant its own', async () => {
      for (let i = 0; i < 2; i++)
        assert.equal((await send(ndjson([appRecord(), appRecord()]), '10.0.0.5', 'Fluent-Bit')).status, 201);
      assert.equal((await send('[{"date":1.5,"log":"x"}]', '10.0.0.7', 'Vector/0.48')).status, 500);
      assert.equal((await send('{"a":', '10.0.0.7', 'Vector/0.48')).status, 400);
      assert.equal((await send('{"b":', '10.0.0.8', 'curl/8')).status, 400);

      const seen = await acme.get<Diagnostics>('/v1/collector/diagnostics');
      assert.equal(seen.status, 200);
      assert.deepEqual(
        seen.body.senders.map((s) => [s.protocol, s.user_agent, s.source_address, s.requests, s.records]),
        [['log_sink', 'Fluent-Bit', '10.0.0.5', 2, 4]],
      );
      const byCode = new Map(seen.body.rejections.map((r) => [r.code, r]));
      assert.equal(byCode.get('forwarder_array_format')?.count, 1);
      assert.equal(byCode.get('forwarder_array_format')?.last_source_address, '10.0.0.7');
      assert.equal(byCode.get('forwarder_array_format')?.last_user_agent, 'Vector/0.48');
      assert.match(byCode.get('forwarder_array_format')?.last_detail ?? '', /Could not add time to JSON/);
      const invalid = byCode.get('invalid_json');
      assert.equal(invalid?.count, 2);
      assert.equal(invalid.last_source_address, '10.0.0.8', 'the latest example');
      assert.ok(Date.parse(invalid.last_at) <= Date.now());

      const other = await globex.get<Diagnostics>('/v1/collector/diagnostics');
      assert.deepEqual(other.body.senders, []);
      assert.deepEqual(other.body.rejections, []);
      assert.equal((await apiClient(suite.server).get('/v1/collector/diagnostics')).status, 401);
    });

    test('a test record needs ingest_keys:write, goes through the collector, is stored, shows as a sender, and is audited', async () => {
      // It passes the ingest-key requirement: a read-only token may not send one.
      expectProblem(await acme.post('/v1/collector/test-record'), 403, 'permission_denied');
      const keyHolder = apiClient(
        suite.server,
        bearer((await issueToken(suite.server, suite.acme, ['ingest_keys:write'], { name: 'key holder' })).value),
      );
      const sent = await keyHolder.post<TestRecord>('/v1/collector/test-record');
      assert.equal(sent.status, 200, JSON.stringify(sent.body));
      assert.equal(sent.body.status, 201);
      assert.equal(sent.body.stored, true);
      assert.ok(sent.body.record_id);
      assert.ok(sent.body.round_trip_ms > 0);
      assert.match(sent.body.collector_url, /^http:\/\/acme-collector\.localhost:\d+$/);
      const stored = await suite.server.sightline.database.db
        .selectFrom('telemetry_records')
        .select(['tenant_id', 'record'])
        .where('seq', '=', recordSeq(sent.body.record_id) ?? -1)
        .executeTakeFirstOrThrow();
      assert.equal(stored.tenant_id, suite.acme.id);
      assert.match(stored.record, /Sightline collector test/);
      const seen = await acme.get<Diagnostics>('/v1/collector/diagnostics');
      assert.ok(seen.body.senders.some((s) => s.user_agent === 'Sightline collector test'));

      const auditor = apiClient(
        suite.server,
        bearer((await issueToken(suite.server, suite.acme, ['audit:read'])).value),
      );
      const audit = await auditor.get<{ events: AuditEvent[] }>('/v1/audit-events?action=collector.test_record_sent');
      assert.equal(audit.status, 200, JSON.stringify(audit.body));
      assert.equal(audit.body.events.length, 1, 'the refused attempt sent nothing');
      const [event] = audit.body.events;
      assert.equal(event?.actor.label, 'key holder');
      assert.equal(event.outcome, 'success');
      assert.deepEqual(event.target, { type: 'record', id: sent.body.record_id });
      assert.equal(event.details.status, 201);
      assert.equal(event.details.stored, true);
    });

    test('two Host headers are refused (400) and nothing is stored; each spelling of an address reaches its tenant', async () => {
      const { port } = new URL(suite.server.baseUrl);
      const body = '{"message":"two hosts"}';
      const status = await rawStatus(
        Number(port),
        `POST /log_sink HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: acme-collector.localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      );
      assert.equal(status, 400);
      const noHost = await rawStatus(
        Number(port),
        `POST /log_sink HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      );
      assert.equal(noHost, 400, 'an HTTP/1.1 request without a Host header');
      const twoHosts = await suite.server.sightline.database.db
        .selectFrom('telemetry_records')
        .select('seq')
        .where('record', 'like', '%two hosts%')
        .execute();
      assert.deepEqual(twoHosts, []);

      // Case, a port, a trailing dot: the same tenant. Another tenant's address: its own.
      for (const [host, tenantId] of [
        ['ACME-collector.LOCALHOST', suite.acme.id],
        ['acme-collector.localhost:443', suite.acme.id],
        ['acme-collector.localhost.', suite.acme.id],
        ['globex-collector.localhost', suite.globex.id],
      ] as const) {
        const record = appRecord();
        assert.equal((await send(JSON.stringify(record), '10.0.0.9', 'routing-test', host)).status, 201, host);
        const row = await suite.server.sightline.database.db
          .selectFrom('telemetry_records')
          .select('tenant_id')
          .where('record', 'like', `%${String(record.marker)}%`)
          .executeTakeFirstOrThrow();
        assert.equal(row.tenant_id, tenantId, host);
      }
      // Behind a trusted proxy the Host header still decides: X-Forwarded-Host names no tenant.
      const forwarded = appRecord();
      const viaProxy = await suite.server.post(JSON.stringify(forwarded), {
        'content-type': 'application/json',
        host: 'globex-collector.localhost',
        'x-forwarded-host': 'acme-collector.localhost',
        'x-forwarded-for': '10.0.0.9',
      });
      assert.equal(viaProxy.status, 201);
      const forwardedRow = await suite.server.sightline.database.db
        .selectFrom('telemetry_records')
        .select('tenant_id')
        .where('record', 'like', `%${String(forwarded.marker)}%`)
        .executeTakeFirstOrThrow();
      assert.equal(forwardedRow.tenant_id, suite.globex.id, 'X-Forwarded-Host is ignored');

      // A request target in absolute form names its host itself and HTTP/1.1 then ignores the
      // Host header: the record goes to the tenant the target names.
      const absolute = '{"message":"absolute form"}';
      const absoluteStatus = await rawStatus(
        Number(port),
        `POST http://globex-collector.localhost/log_sink HTTP/1.1\r\nHost: acme-collector.localhost\r\nContent-Type: application/json\r\nContent-Length: ${absolute.length}\r\nConnection: close\r\n\r\n${absolute}`,
      );
      assert.equal(absoluteStatus, 201);
      const absoluteRows = await suite.server.sightline.database.db
        .selectFrom('telemetry_records')
        .select('tenant_id')
        .where('record', 'like', '%absolute form%')
        .execute();
      assert.deepEqual(
        absoluteRows.map((row) => row.tenant_id),
        [suite.globex.id],
      );

      // An address under another domain, or a look-alike, never reaches acme.
      for (const host of ['acme-collector.localhost.evil.example', 'xacme-collector.localhost']) {
        const record = appRecord();
        const response = await send(JSON.stringify(record), '10.0.0.9', 'routing-test', host);
        const rows = await suite.server.sightline.database.db
          .selectFrom('telemetry_records')
          .select('tenant_id')
          .where('record', 'like', `%${String(record.marker)}%`)
          .execute();
        assert.ok(
          rows.every((row) => row.tenant_id !== suite.acme.id),
          `${host} (${response.status}) must not reach acme`,
        );
      }
    });
  });
}
