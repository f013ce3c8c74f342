// MCP clients for the tests: the official SDK's client over streamable HTTP (POST /mcp) or over
// stdio (spawning the compiled `sightline mcp`), and readers for the tools' answers.
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DATA_NOTE } from '../../src/mcp/mcp-server.js';
import { bearer } from './api.js';
import { cliEntry } from './cli.js';
import { repoRoot } from './processes.js';
import type { TestServer } from './server.js';

export async function httpMcpClient(server: TestServer, token: string): Promise<Client> {
  const client = new Client({ name: 'sightline-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', server.baseUrl), {
    requestInit: { headers: bearer(token) },
  });
  await client.connect(transport);
  return client;
}

/** `sightline mcp --url …` as an MCP client spawns it, with the token in its environment. */
export async function stdioMcpClient(server: TestServer, token: string): Promise<Client> {
  const client = new Client({ name: 'sightline-test', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliEntry, 'mcp', '--url', server.baseUrl],
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', SIGHTLINE_TOKEN: token },
    stderr: 'pipe',
  });
  await client.connect(transport);
  return client;
}

/** Calls a tool; returns its JSON answer, after checking the note that comes first. */
export async function callData<T>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  assert.notEqual(result.isError, true, `${name} failed: ${JSON.stringify(result.content)}`);
  const [note, data] = result.content;
  assert.deepEqual(note, { type: 'text', text: DATA_NOTE });
  assert.equal(data?.type, 'text');
  return JSON.parse(data.text) as T;
}

/** Calls a tool that must fail; returns the text the model would read. */
export async function callError(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  assert.equal(result.isError, true, `${name} should have failed: ${JSON.stringify(result.content)}`);
  return result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
}
