// POST /mcp: the MCP server over streamable HTTP, stateless (each request carries its own JSON-RPC
// messages, so any API node can answer it). The caller authenticates with an API token as on /v1,
// and each tool reads through /v1 in-process with that same token: same permissions, same tenant.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { AppError, errorMessage } from '../core/errors.js';
import { routePlugin } from '../http/route-plugin.js';
import { installInputGuards } from '../http/input-guard.js';
import {
  installAccessCheck,
  presentedToken,
  principalOf,
  tenantOf,
  TENANT_HEADER,
  type AuthDependencies,
} from '../identity/auth.js';
import { actorOf } from '../identity/principal.js';
import { recordAudit } from '../identity/audit/audit-service.js';
import type { ApiCaller } from './api-caller.js';
import { createMcpServer } from './mcp-server.js';
import { auditToolCalls } from './tool-audit.js';

export const MCP_PATH = '/mcp';

export const mcpRoutes = routePlugin(function mcpRoutes(app: FastifyInstance, deps: AuthDependencies): void {
  // A token only: MCP clients are integrations, and the tools forward the token to /v1.
  app.addHook('onRequest', async (request) => {
    if (request.method === 'POST' && presentedToken(request.headers.authorization) === undefined)
      throw new AppError('unauthenticated', 'send an API token as "Authorization: Bearer <token>"', {
        headers: { 'WWW-Authenticate': 'Bearer realm="sightline"' },
      });
  });
  installAccessCheck(app, deps);
  installInputGuards(app);

  app.post(MCP_PATH, { config: { access: { scope: 'tenant' } } }, async (request, reply) => {
    const principal = principalOf(request);
    const tenant = tenantOf(request);
    const server = createMcpServer(injectedApi(app, request), (permission) => principal.permissions.has(permission));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    auditToolCalls(transport, request.body, (call) =>
      recordAudit(deps.db, {
        tenantId: tenant.id,
        action: 'mcp.tool_called',
        outcome: call.ok ? 'success' : 'failure',
        actor: actorOf(principal),
        ip: request.ip,
        details: { tool: call.tool, arguments: call.argumentShape },
      }),
    );
    // The transport writes the answer itself; Fastify's own reply is given up.
    void reply.hijack();
    reply.raw.setHeader('X-Content-Type-Options', 'nosniff');
    reply.raw.on('close', () => void server.close());
    try {
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    } catch (error) {
      request.log.error({ error: errorMessage(error) }, 'MCP request failed');
      if (!reply.raw.headersSent) reply.raw.writeHead(500, { 'content-type': 'application/json' });
      reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'internal error' }, id: null }));
    }
  });

  // Stateless: there is no server-sent stream to open (GET) and no session to end (DELETE).
  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: MCP_PATH,
      config: { access: { scope: 'public' } },
      handler: () => {
        throw new AppError('method_not_allowed', 'the MCP endpoint is stateless: send JSON-RPC messages with POST', {
          headers: { Allow: 'POST' },
        });
      },
    });
  }
});

/** Calls /v1 in-process as the caller: their token, tenant header, host and address. */
function injectedApi(app: FastifyInstance, request: FastifyRequest): ApiCaller {
  const headers: Record<string, string> = { authorization: request.headers.authorization ?? '' };
  const tenantHeader = request.headers[TENANT_HEADER];
  if (typeof tenantHeader === 'string') headers[TENANT_HEADER] = tenantHeader;
  if (request.headers.host) headers.host = request.headers.host;
  return async (call) => {
    const query = Object.entries(call.query ?? {}).flatMap(([name, value]) =>
      value === undefined ? [] : [[name, String(value)] as const],
    );
    const response = await app.inject({
      method: call.method,
      url: `/v1${call.path}`,
      query: Object.fromEntries(query),
      headers: call.body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      ...(call.body === undefined ? {} : { payload: JSON.stringify(call.body) }),
      remoteAddress: request.ip,
    });
    return { status: response.statusCode, text: response.body };
  };
}
