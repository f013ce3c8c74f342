// --metrics-listen: /metrics on an address of its own, without credentials, for a Prometheus
// scraper on a private network (the main port asks for the metrics token instead). It answers
// GET /metrics and nothing else.
import http from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import { metricsText, type HealthDependencies } from './health-routes.js';

export interface MetricsListener {
  close(): Promise<void>;
}

export async function startMetricsListener(
  address: string,
  deps: Pick<HealthDependencies, 'db' | 'queue' | 'log' | 'metrics' | 'scale'>,
  log: FastifyBaseLogger,
): Promise<MetricsListener> {
  const split = address.lastIndexOf(':');
  const host = address.slice(0, split).replace(/^\[|\]$/g, '');
  const port = Number(address.slice(split + 1));
  const server = http.createServer((request, response) => {
    if (request.method !== 'GET' || (request.url ?? '').split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('only GET /metrics is served here\n');
      return;
    }
    metricsText(deps).then(
      ({ contentType, text }) => response.writeHead(200, { 'content-type': contentType }).end(text),
      (error: unknown) => {
        log.warn({ error: error instanceof Error ? error.message : String(error) }, 'metrics scrape failed');
        response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics are unavailable; see the server log\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  log.info({ address }, `metrics served without credentials at http://${address}/metrics`);
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
