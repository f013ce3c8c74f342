// Assembles the HTTP server from the features' route plugins. Nothing here decides behaviour:
// it wires logging, errors, metrics, TLS, cookies and the API document, and registers each
// feature's routes.
import fs from 'node:fs';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import cookie from '@fastify/cookie';
import type { Config } from '../config/config.js';
import { collectorRoutes, type CollectorDependencies } from '../collector/intake/collector-routes.js';
import { schemaCompilers } from '../http/schema-compilers.js';
import { installErrorHandling, sendProblem } from '../http/error-handler.js';
import { AppError } from '../core/errors.js';
import { healthRoutes, type HealthDependencies } from './health-routes.js';
import { registerDocsSite, registerOpenApi } from './openapi.js';
import { v1Routes, type ApiDependencies } from './v1-routes.js';
import { webUi } from '../http/web-ui.js';
import { mcpRoutes } from '../mcp/mcp-routes.js';
import { indexRouteMethods } from '../http/method-not-allowed.js';
import { clientErrorHandler } from '../http/client-errors.js';
import { hostHeaderProblem } from '../http/host-header.js';
import { LogThrottle } from '../observability/log-throttle.js';

/** Longest path parameter the router accepts (ids are far shorter). */
const MAX_PARAM_LENGTH = 200;

/** How often the server looks for requests past their header or request timeout. */
const TIMEOUT_CHECK_MS = 500;

export type ServerDependencies = CollectorDependencies & HealthDependencies & ApiDependencies & { config: Config };

/** Fastify's trustProxy from the setting: off, any proxy, or the listed addresses and ranges. */
function trustProxy(setting: string): boolean | string[] {
  if (setting === '') return false;
  if (setting === 'true') return true;
  return setting.split(',').map((entry) => entry.trim());
}

export function buildServer(deps: ServerDependencies): FastifyInstance {
  const { config, metrics } = deps;
  // Node's own timeouts: headers and the whole request must arrive in time, checked twice a
  // second so that a slow sender (slowloris) is cut off within half a second of its deadline.
  const timeouts = {
    headersTimeout: config.headerTimeout,
    requestTimeout: config.requestTimeout,
    connectionsCheckingInterval: TIMEOUT_CHECK_MS,
  };
  const clientErrors = new LogThrottle(() => app.log);
  const app: FastifyInstance = Fastify({
    logger: {
      level: config.logLevel,
      // Credentials never reach the log, whatever a future log line includes.
      redact: [
        'req.headers.authorization',
        'req.headers.cookie',
        'req.headers["x-csrf-token"]',
        'res.headers["set-cookie"]',
      ],
    },
    // Per-request logs would dominate a busy collector; errors are still logged with request ids.
    logController: new LogController({ disableRequestLogging: true }),
    // Each distinct schema compiled once per process (src/http/schema-compilers.ts).
    schemaController: schemaCompilers,
    requestIdHeader: 'x-request-id',
    keepAliveTimeout: 75_000,
    // A request must arrive whole within this time; a stalled upload cannot pin memory forever.
    requestTimeout: config.requestTimeout,
    http: timeouts,
    // What the router refuses (a path segment over maxParamLength, malformed percent-encoding)
    // is a problem body like any other error.
    frameworkErrors: (error, _request, reply) => {
      void sendProblem(
        reply,
        new AppError(
          'invalid_request',
          error.code === 'FST_ERR_MAX_PARAM_LENGTH'
            ? `a path segment is longer than ${MAX_PARAM_LENGTH} characters; no id is that long`
            : 'the URL is not valid (malformed percent-encoding)',
        ),
      );
    },
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // What the HTTP parser rejects is answered as a problem, counted, and logged once per interval.
    clientErrorHandler: clientErrorHandler((code, error) => {
      metrics.clientErrors.inc({ code });
      clientErrors.note('client request refused by the HTTP parser', { code, parser_code: error.code });
    }),
    trustProxy: trustProxy(config.trustProxy),
    // Unknown fields are refused, not silently dropped: a misspelt `expires_at` must not
    // create a token that never expires. Arrays are not coerced to scalars either.
    // verbose: each finding carries the value and the schema around it, for the plain-words message.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: true, allowUnionTypes: true, verbose: true } },
    ...(config.tlsCert
      ? { https: { ...timeouts, cert: fs.readFileSync(config.tlsCert), key: fs.readFileSync(config.tlsKey) } }
      : {}),
  });

  const ui = webUi();
  installErrorHandling(app, ui.pageFallback, indexRouteMethods(app, MAX_PARAM_LENGTH));
  app.addHook('onRequest', (request, _reply, done) => {
    done(hostHeaderProblem(request.raw));
  });
  // Every answer: browsers must not guess content types; over HTTPS, browsers keep to HTTPS.
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('X-Content-Type-Options', 'nosniff');
    if (request.protocol === 'https') reply.header('Strict-Transport-Security', 'max-age=31536000');
    return payload;
  });
  app.addHook('onResponse', async (request, reply) => {
    metrics.httpRequests.inc({ route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) });
  });

  app.decorate('apiRoutes', []);
  app.register(cookie);
  app.register(registerOpenApi);
  app.register(healthRoutes, deps);
  // Scale-out roles: a collector node serves only the intakes (/log_sink, OTLP, HEC, bulk), an API
  // node the API and the UI; every node answers /healthz, /readyz and /metrics.
  if (config.role.includes('collector')) app.register(collectorRoutes, deps);
  if (config.role.includes('api')) {
    app.register(v1Routes, { ...deps, prefix: '/v1' });
    // MCP clients (docs/mcp.md): the same tools the stdio bridge `sightline mcp` forwards to.
    app.register(mcpRoutes, { db: deps.database.db, limiter: deps.limiter, metrics });
    app.register(registerDocsSite, { db: deps.database.db, limiter: deps.limiter });
    app.register(ui.plugin);
  }
  return app;
}
