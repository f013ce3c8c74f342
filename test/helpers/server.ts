// Starts a real Sightline (real database, real HTTP on a free loopback port) for a test.
import http from 'node:http';
import { loadConfig, type CliValues } from '../../src/config/config.js';
import { createSightline, type Sightline } from '../../src/app/app.js';
import type { TestDatabase } from './databases.js';

/** The scraper token every test server is started with (/metrics needs one on the main port). */
export const TEST_METRICS_TOKEN = 'test-metrics-token-0123456789abcdef';

export interface TestServer {
  baseUrl: string;
  sightline: Sightline;
  /** GET /metrics with the scraper token: the Prometheus text. */
  metrics(): Promise<string>;
  post(body: string | Buffer, headers?: Record<string, string>, path?: string): Promise<Response>;
  close(): Promise<void>;
}

export async function startServer(
  database: TestDatabase,
  overrides: CliValues = {},
  env: NodeJS.ProcessEnv = {},
): Promise<TestServer> {
  const config = loadConfig(
    { dataDir: database.dataDir, databaseUrl: database.databaseUrl, port: 0, logLevel: 'silent', ...overrides },
    {
      SIGHTLINE_METRICS_TOKEN: TEST_METRICS_TOKEN,
      // The test runner lowers the password hashing work factor for the whole run (scripts/run-tests.mjs).
      ...(process.env.SIGHTLINE_PASSWORD_HASH_COST
        ? { SIGHTLINE_PASSWORD_HASH_COST: process.env.SIGHTLINE_PASSWORD_HASH_COST }
        : {}),
      ...env,
    },
  );
  const sightline = await createSightline(config);
  await sightline.server.listen({ host: '127.0.0.1', port: 0 });
  const address = sightline.server.server.address();
  if (!address || typeof address !== 'object') throw new Error('server has no address');
  const baseUrl = `http://127.0.0.1:${address.port}`;
  return {
    baseUrl,
    sightline,
    metrics: async () => {
      const response = await fetch(`${baseUrl}/metrics`, {
        headers: { authorization: `Bearer ${TEST_METRICS_TOKEN}` },
      });
      if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}`);
      return response.text();
    },
    post: (body, headers = { 'content-type': 'application/json' }, path = '/log_sink') =>
      httpPost(`${baseUrl}${path}`, body, headers),
    close: () => sightline.close(),
  };
}

/**
 * POST with node:http rather than fetch, because fetch drops a custom Host header and the
 * collector routes tenants by Host. The answer is wrapped as a standard Response.
 */
export function httpPost(url: string, body: string | Buffer, headers: Record<string, string>): Promise<Response> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'POST', headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
        }
        resolve(new Response(Buffer.concat(chunks), { status: response.statusCode ?? 0, headers: responseHeaders }));
      });
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}
