// Assembles the HTTP server from the features' route plugins. Nothing here decides behaviour:
// it wires logging, errors, metrics and TLS, and registers each feature's routes.
import fs from 'node:fs';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { Config } from '../config/config.js';
import { collectorRoutes, type CollectorDependencies } from '../collector/collector-routes.js';
import { installErrorHandling } from './error-handler.js';
import { healthRoutes, type HealthDependencies } from './health-routes.js';

export const REQUEST_TIMEOUT_MS = 60_000;

export type ServerDependencies = CollectorDependencies & HealthDependencies & { config: Config };

export function buildServer(deps: ServerDependencies): FastifyInstance {
  const { config, metrics } = deps;
  const app = Fastify({
    logger: { level: config.logLevel },
    // Per-request logs would dominate a busy collector; errors are still logged with request ids.
    logController: new LogController({ disableRequestLogging: true }),
    requestIdHeader: 'x-request-id',
    keepAliveTimeout: 75_000,
    // A request must arrive whole within this time; a stalled upload cannot pin memory forever.
    requestTimeout: REQUEST_TIMEOUT_MS,
    ...(config.tlsCert ? { https: { cert: fs.readFileSync(config.tlsCert), key: fs.readFileSync(config.tlsKey) } } : {}),
  });

  installErrorHandling(app);
  app.addHook('onResponse', async (request, reply) => {
    metrics.httpRequests.inc({ route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) });
  });

  app.register(healthRoutes, deps);
  app.register(collectorRoutes, deps);
  return app;
}
