// The MCP feature's pure parts: the telemetry time window, the bridge's endpoint address, and
// what the audit keeps of a tool call (names and JSON types, never values).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { telemetryWindow } from './mcp-tools.js';
import { mcpEndpoint } from './stdio-bridge.js';
import { auditToolCalls, type ToolCallAudit } from './tool-audit.js';

const now = Date.parse('2026-11-22T10:00:00Z');

test('a telemetry search defaults to the week before until, and refuses a span over 31 days', () => {
  assert.deepEqual(telemetryWindow(undefined, undefined, now), {
    since: '2026-11-15T10:00:00.000Z',
    until: '2026-11-22T10:00:00.000Z',
  });
  assert.equal(telemetryWindow('2026-11-01T00:00:00Z', undefined, now).until, '2026-11-22T10:00:00.000Z');
  assert.throws(() => telemetryWindow('2026-10-01T00:00:00Z', undefined, now), /more than 31 days/);
});

test('the bridge calls the /mcp of the server given, or the /mcp address itself', () => {
  assert.equal(mcpEndpoint('http://127.0.0.1:8080').href, 'http://127.0.0.1:8080/mcp');
  assert.equal(mcpEndpoint('https://soc.example.com/sightline/').href, 'https://soc.example.com/sightline/mcp');
  assert.equal(mcpEndpoint('https://soc.example.com/mcp').href, 'https://soc.example.com/mcp');
  assert.throws(() => mcpEndpoint('file:///etc/passwd'), /must be http/);
});

test('the audit of a tool call keeps argument names and types, and the outcome', async () => {
  const sent: JSONRPCMessage[] = [];
  const transport = { send: (message: JSONRPCMessage) => Promise.resolve(void sent.push(message)) } as Transport;
  const audited: ToolCallAudit[] = [];
  const call = { name: 'search_telemetry', arguments: { query: "' OR 1=1 --", limit: 5, level: ['high'] } };
  auditToolCalls(transport, [{ jsonrpc: '2.0', id: 7, method: 'tools/call', params: call }], (entry) => {
    audited.push(entry);
    return Promise.resolve();
  });
  await transport.send({ jsonrpc: '2.0', id: 7, result: { content: [], isError: true } });
  assert.deepEqual(audited, [
    { tool: 'search_telemetry', argumentShape: { query: 'string', limit: 'number', level: 'array' }, ok: false },
  ]);
  assert.equal(sent.length, 1, 'the answer is still sent');
});
