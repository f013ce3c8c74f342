// The stdio side of `sightline mcp`: an MCP server on stdin/stdout that relays tools/list and
// tools/call to a Sightline server's POST /mcp. The tools, their limits, tenant scoping and the
// audit all stay on the server; the bridge only relays, so it writes nothing but JSON-RPC to stdout.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../core/errors.js';

const BRIDGE_INFO = { name: 'sightline-mcp-bridge', version: '1.0.0' };

/** The server's MCP endpoint from the address given: the server's base URL, or its /mcp. */
export function mcpEndpoint(url: string): URL {
  const base = new URL(url);
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new Error(`--url must be http(s): ${url}`);
  if (!base.pathname.endsWith('/mcp')) base.pathname = `${base.pathname.replace(/\/$/, '')}/mcp`;
  return base;
}

/** Connects to the server (refusing to start if it rejects the token), then serves stdio. */
export async function runStdioBridge(endpoint: URL, token: string): Promise<void> {
  const client = await connectUpstream(endpoint, token);
  // The low-level server under McpServer: it relays the tools' JSON Schemas as the server sent them.
  const bridge = new McpServer(client.getServerVersion() ?? BRIDGE_INFO, {
    capabilities: { tools: {} },
    ...(client.getInstructions() ? { instructions: client.getInstructions() } : {}),
  });
  const relay = tracker();
  const server = bridge.server;
  server.setRequestHandler(ListToolsRequestSchema, (request) => relay.track(client.listTools(request.params)));
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    relay.track(client.callTool(request.params) as Promise<CallToolResult>),
  );
  server.onerror = client.onerror = (error) => process.stderr.write(`sightline mcp: ${errorMessage(error)}\n`);
  // The MCP client ends the session by closing stdin: answer what is in flight, then stop.
  process.stdin.on('end', () => {
    void relay.drained().then(async () => {
      await server.close();
      await client.close();
    });
  });
  await bridge.connect(new StdioServerTransport());
}

async function connectUpstream(endpoint: URL, token: string): Promise<Client> {
  const client = new Client(BRIDGE_INFO);
  const transport = new StreamableHTTPClientTransport(endpoint, {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  try {
    await client.connect(transport);
  } catch (error) {
    // Said on stderr by the CLI; the token itself is never part of the message.
    const refused = error instanceof StreamableHTTPError && error.code === 401;
    throw new Error(
      refused
        ? `the server at ${endpoint.origin} refused the token in SIGHTLINE_TOKEN (HTTP 401): ${errorMessage(error)}`
        : `cannot start an MCP session with ${endpoint.href}: ${errorMessage(error)}${causeOf(error)}`,
      { cause: error },
    );
  }
  return client;
}

/** What a failed fetch hides in its cause: ECONNREFUSED, a certificate error. */
function causeOf(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : undefined;
  return cause ? ` (${errorMessage(cause)})` : '';
}

/** The relayed requests still in flight, so that closing stdin does not cut an answer off. */
function tracker() {
  const inFlight = new Set<Promise<unknown>>();
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
  return {
    track<T>(work: Promise<T>): Promise<T> {
      const done = () => inFlight.delete(work);
      inFlight.add(work);
      work.then(done, done);
      return work;
    },
    /** Resolves once nothing is in flight and the last answer was written. */
    async drained(): Promise<void> {
      // A turn first: requests read with the end of stdin reach their handlers in the next one.
      do {
        await nextTurn();
        await Promise.allSettled([...inFlight]);
      } while (inFlight.size > 0);
      await nextTurn();
    },
  };
}
