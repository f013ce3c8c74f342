// `sightline mcp --url …` as an MCP client runs it: the compiled CLI on stdio, relaying to the
// server's POST /mcp with the token from SIGHTLINE_TOKEN. It answers the SDK's stdio client and a
// raw JSON-RPC exchange on stdout alone, is audited on the server, and refuses to start without
// a token the server accepts.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { databaseTargets } from '../helpers/databases.js';
import { apiClient, bearer, ingest, issueToken } from '../helpers/api.js';
import { apiSuite } from '../helpers/suite.js';
import { runCli } from '../helpers/cli.js';
import { callData, stdioMcpClient } from '../helpers/mcp.js';
import { appRecord } from '../helpers/factories.js';

interface AuditEvents {
  events: { action: string; details: { tool?: string } }[];
}

const exchange = [
  {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'printf', version: '1' } },
  },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 2, method: 'tools/list' },
]
  .map((message) => `${JSON.stringify(message)}\n`)
  .join('');

for (const target of databaseTargets) {
  describe(`sightline mcp on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target);
    let token: string;

    before(async () => {
      token = (await issueToken(suite.server, suite.acme, ['telemetry:read', 'cases:read', 'audit:read'])).value;
    });

    test('the SDK stdio client lists the tools and searches telemetry; the call is audited', async () => {
      const marker = randomUUID();
      await ingest(suite.server, [appRecord({ marker })]);
      const client = await stdioMcpClient(suite.server, token);
      try {
        const { tools } = await client.listTools();
        assert.deepEqual(tools.map((tool) => tool.name).sort(), ['get_case', 'search_cases', 'search_telemetry']);
        const page = await callData<{ records: { record: { marker: string } }[] }>(client, 'search_telemetry', {
          query: marker,
        });
        assert.equal(page.records[0]?.record.marker, marker);
      } finally {
        await client.close();
      }
      const audit = await apiClient(suite.server, bearer(token)).get<AuditEvents>(
        '/v1/audit-events?action=mcp.tool_called',
      );
      assert.equal(audit.body.events[0]?.details.tool, 'search_telemetry');
    });

    test('a raw exchange on stdin gets JSON-RPC answers alone on stdout', async () => {
      const run = await runCli(['mcp', '--url', suite.server.baseUrl], { SIGHTLINE_TOKEN: token }, exchange);
      assert.equal(run.code, 0, run.stderr);
      const lines = run.stdout.trim().split('\n');
      const answers = lines.map((line) => JSON.parse(line) as { jsonrpc: string; id: number; result?: unknown });
      assert.ok(answers.every((answer) => answer.jsonrpc === '2.0'));
      const listed = answers.find((answer) => answer.id === 2);
      assert.ok(JSON.stringify(listed?.result).includes('"tools"'), run.stdout);
    });

    test('without SIGHTLINE_TOKEN it refuses to start, saying why on stderr', async () => {
      const run = await runCli(['mcp', '--url', suite.server.baseUrl], { SIGHTLINE_TOKEN: '' }, exchange);
      assert.notEqual(run.code, 0);
      assert.match(run.stderr, /SIGHTLINE_TOKEN is not set/);
      assert.equal(run.stdout, '');
    });

    test('a token the server refuses stops it, without printing the token', async () => {
      const bogus = `slt_${'x'.repeat(40)}`;
      const run = await runCli(['mcp', '--url', suite.server.baseUrl], { SIGHTLINE_TOKEN: bogus }, exchange);
      assert.notEqual(run.code, 0);
      assert.match(run.stderr, /refused the token in SIGHTLINE_TOKEN \(HTTP 401\)/);
      assert.ok(!run.stderr.includes(bogus));
      assert.equal(run.stdout, '');
    });
  });
}
