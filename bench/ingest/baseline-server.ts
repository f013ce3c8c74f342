// Baseline for the ingestion benchmark: a bare node:http server that reads each body and runs
// the same parser as the collector, then answers 201 without storing anything. The gap between
// it and Sightline is the cost of routing, queueing and durable commits.
import http from 'node:http';
import { parseBody } from '../../src/collector/intake/parse.js';
import { AppError } from '../../src/core/errors.js';

const portIndex = process.argv.indexOf('--port');
const port = Number(portIndex >= 0 ? process.argv[portIndex + 1] : Number.NaN);
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  process.stderr.write('usage: baseline-server.ts --port <port>\n');
  process.exit(2);
}

function send(response: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  response.end(text);
}

const server = http.createServer((request, response) => {
  if (request.method === 'GET' && request.url === '/readyz') {
    send(response, 200, { status: 'ready' });
    return;
  }
  if (request.method !== 'POST' || request.url !== '/log_sink') {
    send(response, 404, { error: 'not_found' });
    return;
  }
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('error', () => response.destroy());
  request.on('end', () => {
    try {
      // Same limit as Sightline's default, so both sides do identical parsing work.
      const parsed = parseBody(Buffer.concat(chunks), { maxRecordBytes: 1024 * 1024 });
      send(response, 201, { accepted: parsed.records.length });
    } catch (error) {
      send(response, 400, { error: error instanceof AppError ? error.code : 'invalid_body' });
    }
  });
});

// Node's default keep-alive timeout (5 s) is shorter than a stalled run; match the generator's reuse.
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1');

const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
