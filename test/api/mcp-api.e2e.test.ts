// The MCP server at POST /mcp, through the official SDK client: its tools read one tenant's
// cases, observations, telemetry, devices and coverage; every answer carries the data note,
// limits are refused, other tenants stay invisible, and each call is audited. Both databases.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { databaseTargets } from '../helpers/databases.js';
import { apiClient, bearer, detectionCaughtUp, ingest, issueToken } from '../helpers/api.js';
import { apiSuite } from '../helpers/suite.js';
import { webAccessRecord } from '../helpers/factories.js';
import { callData, callError, httpMcpClient } from '../helpers/mcp.js';
import type { Permission } from '../../src/identity/permissions.js';

const READER: Permission[] = ['cases:read', 'observations:read', 'telemetry:read', 'devices:read', 'summaries:read'];
const TOOLS = ['attack_coverage', 'get_case', 'get_device', 'list_observations', 'search_cases', 'search_telemetry'];

interface Records {
  records: { record: { marker?: string } }[];
}
interface Cases {
  cases: { id: string; number: number }[];
}
interface AuditEvents {
  events: { action: string; outcome: string; actor: { type: string }; details: Record<string, unknown> }[];
}

for (const target of databaseTargets) {
  describe(`MCP over HTTP on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target);
    const marker = randomUUID();
    let acme: Client;
    let globex: Client;
    let adminToken: string;

    before(async () => {
      acme = await httpMcpClient(suite.server, (await issueToken(suite.server, suite.acme, READER)).value);
      globex = await httpMcpClient(suite.server, (await issueToken(suite.server, suite.globex)).value);
      adminToken = (await issueToken(suite.server, suite.acme, ['audit:read'])).value;
      const attack = "GET /item?id=1'%20UNION%20SELECT%20username,password%20FROM%20users-- HTTP/1.1";
      await ingest(suite.server, [webAccessRecord({ marker, hostname: 'web-01', request: attack })]);
      await detectionCaughtUp(suite.server);
    });
    after(async () => {
      await acme.close();
      await globex.close();
    });

    test('tools/list names the six read-only tools', async () => {
      const { tools } = await acme.listTools();
      assert.deepEqual(tools.map((tool) => tool.name).sort(), TOOLS);
      for (const tool of tools) {
        assert.equal(tool.annotations?.readOnlyHint, true, tool.name);
        assert.equal(tool.inputSchema.type, 'object', tool.name);
      }
    });

    test('a token is offered only the tools its permissions allow', async () => {
      const narrow = await httpMcpClient(
        suite.server,
        (await issueToken(suite.server, suite.acme, ['telemetry:read'])).value,
      );
      const { tools } = await narrow.listTools();
      assert.deepEqual(
        tools.map((tool) => tool.name),
        ['search_telemetry'],
      );
      await narrow.close();
    });

    test('search_telemetry finds the ingested record, after the data note', async () => {
      const page = await callData<Records>(acme, 'search_telemetry', { query: marker, limit: 5 });
      assert.equal(page.records.length, 1);
      assert.equal(page.records[0]?.record.marker, marker);
    });

    test('a detection becomes observations and a case that get_case shows with its observations', async () => {
      const observations = await callData<{ observations: { techniques: { id: string }[]; host: string }[] }>(
        acme,
        'list_observations',
        { technique: 'T1190', level: ['high', 'critical', 'medium'] },
      );
      assert.ok(observations.observations.length > 0, 'the SQL injection was observed');
      const cases = await callData<Cases>(acme, 'search_cases', { technique: 'T1190', limit: 5 });
      const found = cases.cases[0];
      assert.ok(found, 'the observation opened a case');
      const detail = await callData<{ id: string; observations: unknown[]; summary: unknown }>(acme, 'get_case', {
        case_id: String(found.number),
      });
      assert.equal(detail.id, found.id);
      assert.ok(detail.observations.length > 0);
      assert.ok('summary' in detail, 'the summary is shown when there is one (null here)');
    });

    test('get_device finds the host; attack_coverage says T1190 is covered', async () => {
      const device = await callData<{ id: string; host_name: string }>(acme, 'get_device', { host: 'WEB-01' });
      assert.equal(device.host_name, 'web-01');
      const byId = await callData<{ id: string }>(acme, 'get_device', { device_id: device.id });
      assert.equal(byId.id, device.id);
      const coverage = await callData<{ covered: boolean; live: boolean; technique: { id: string } }>(
        acme,
        'attack_coverage',
        { technique: 'T1190' },
      );
      assert.equal(coverage.technique.id, 'T1190');
      assert.equal(coverage.covered, true);
      assert.equal(typeof coverage.live, 'boolean');
      assert.match(await callError(acme, 'attack_coverage', { technique: 'T9999' }), /not in the bundled ATT&CK/);
    });

    test("another tenant's token sees none of it", async () => {
      const page = await callData<Records>(globex, 'search_telemetry', { query: marker });
      assert.deepEqual(page.records, []);
      assert.deepEqual((await callData<Cases>(globex, 'search_cases', {})).cases, []);
      const acmeCase = (await callData<Cases>(acme, 'search_cases', { limit: 1 })).cases[0]!;
      assert.match(await callError(globex, 'get_case', { case_id: acmeCase.id }), /HTTP 404 not_found/);
      assert.match(await callError(globex, 'get_device', { host: 'web-01' }), /no device/);
    });

    test('limits past their bound are refused, not clamped', async () => {
      assert.match(await callError(acme, 'search_telemetry', { limit: 101 }), /limit/);
      assert.match(await callError(acme, 'search_cases', { limit: 51 }), /limit/);
      assert.match(
        await callError(acme, 'search_telemetry', { since: '2026-01-01T00:00:00Z', until: '2026-03-01T00:00:00Z' }),
        /more than 31 days/,
      );
    });

    test('a missing or unknown token is refused with 401; GET is not served', async () => {
      const initialize = {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      };
      const post = (headers: Record<string, string>) =>
        apiClient(suite.server).request('POST', '/mcp', {
          body: initialize,
          headers: { accept: 'application/json, text/event-stream', ...headers },
        });
      assert.equal((await post({})).status, 401);
      assert.equal((await post(bearer('slt_not_a_real_token'))).status, 401);
      await assert.rejects(httpMcpClient(suite.server, 'slt_not_a_real_token'), /401/);
      // Stateless: no event stream to open, no session to end.
      const get = await apiClient(suite.server).get('/mcp', { accept: 'text/event-stream' });
      assert.equal(get.status, 405);
      assert.equal(get.headers.get('allow'), 'POST');
    });

    test('each tool call leaves an audit event with the shape of its arguments, not their values', async () => {
      const admin = apiClient(suite.server, bearer(adminToken));
      const before = (await admin.get<AuditEvents>('/v1/audit-events?action=mcp.tool_called&limit=200')).body.events;
      await callData(acme, 'search_telemetry', { query: marker, limit: 3 });
      await callError(acme, 'search_cases', { limit: 500 });
      const events = (await admin.get<AuditEvents>('/v1/audit-events?action=mcp.tool_called&limit=200')).body.events;
      const [refused, searched] = events.slice(0, events.length - before.length);
      assert.ok(refused && searched, 'one event per call, newest first');
      assert.deepEqual(searched.details, {
        tool: 'search_telemetry',
        arguments: { query: 'string', limit: 'number' },
      });
      assert.equal(searched.outcome, 'success');
      assert.equal(searched.actor.type, 'token');
      assert.deepEqual(refused.details, { tool: 'search_cases', arguments: { limit: 'number' } });
      assert.equal(refused.outcome, 'failure');
      assert.ok(!JSON.stringify(events).includes(marker), 'argument values stay out of the audit log');
    });
  });
}
