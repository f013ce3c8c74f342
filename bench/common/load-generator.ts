// Load generator for the ingestion benchmark: keeps N NDJSON posts in flight over keep-alive
// connections for a fixed time and prints one JSON line of results. It runs in its own process
// so that its CPU use is not charged to the server's event loop. With --rate R it offers a
// steady R records per second instead: each post starts at its slot on a fixed schedule (or at
// once, when the server has fallen behind it), so what the server accepts over a run is R when
// it keeps up and less when it does not. With --warmup S the same load runs S seconds first and
// is reported apart: a server just started answers its first requests with code not yet
// optimised, and those latencies belong to its start, not to its steady rate.
import http from 'node:http';
import { makeBody } from './records.js';
import { seededRandom } from '../../src/core/random.js';
import { at } from './checked.js';

interface Options {
  url: URL;
  connections: number;
  durationS: number;
  bodies: number;
  /** Size of each request body. */
  bodyKb: number;
  /** Records per second offered; undefined: as fast as the server answers. */
  rate?: number;
  /** Seconds of the same load before the measured duration, reported apart. */
  warmupS: number;
  /** An Authorization header to send (a collector ingest key), if any. */
  authorization?: string;
}

function parseOptions(argv: string[]): Options {
  const value = (flag: string): string | undefined => {
    const index = argv.indexOf(flag);
    return index >= 0 ? argv[index + 1] : undefined;
  };
  const positive = (flag: string, fallback: number): number => {
    const raw = value(flag);
    const parsed = raw === undefined ? fallback : Number(raw);
    if (!Number.isFinite(parsed) || parsed <= 0) throw new Error(`${flag} must be a positive number; got ${raw}`);
    return parsed;
  };
  const url = new URL(value('--url') ?? '');
  // The benchmark must never send traffic anywhere but this machine.
  if (url.hostname !== '127.0.0.1' || url.protocol !== 'http:')
    throw new Error(`--url must be http://127.0.0.1:<port>/…; got ${url.href}`);
  return {
    url,
    connections: Math.floor(positive('--connections', 8)),
    durationS: positive('--duration', 10),
    bodies: Math.floor(positive('--bodies', 8)),
    bodyKb: positive('--body-kb', 1024),
    ...(value('--rate') ? { rate: positive('--rate', 1) } : {}),
    // 0 or a positive number of seconds; none by default.
    warmupS: (value('--warmup') ?? '0') === '0' ? 0 : positive('--warmup', 0),
    ...(value('--authorization') ? { authorization: value('--authorization') } : {}),
  };
}

interface Outcome {
  status: number;
  accepted: number;
  retryAfterS: number;
}

const REQUEST_TIMEOUT_MS = 120_000;
/** Printed once, when the first answer arrives (ingest-harness.ts waits for it). */
const LOAD_FLOWING = 'load flowing';

function post(agent: http.Agent, url: URL, body: Buffer, authorization?: string): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        timeout: REQUEST_TIMEOUT_MS,
        headers: {
          'Content-Type': 'application/x-ndjson',
          'Content-Length': body.length,
          ...(authorization ? { Authorization: authorization } : {}),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          let accepted = 0;
          if (status === 201) {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown;
            try {
              parsed = JSON.parse(text);
            } catch {
              reject(new Error(`201 with a body that is not JSON: ${text.slice(0, 100)}`));
              return;
            }
            if (
              typeof parsed === 'object' &&
              parsed !== null &&
              'accepted' in parsed &&
              typeof parsed.accepted === 'number'
            )
              accepted = parsed.accepted;
          }
          const retryAfter = Number(response.headers['retry-after']);
          resolve({ status, accepted, retryAfterS: Number.isFinite(retryAfter) ? retryAfter : 0 });
        });
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no response within ${REQUEST_TIMEOUT_MS} ms`)));
    request.on('error', reject);
    request.end(body);
  });
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  // Nearest-rank: with few requests per run, interpolating would invent latencies never observed.
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return at(sorted, rank - 1);
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const random = seededRandom(20_261_122);
  // A few distinct bodies, so the server does not see byte-identical requests back to back.
  const bodies = Array.from({ length: options.bodies }, () => makeBody(random, options.bodyKb * 1024));
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });

  const totals = { records: 0, bytes: 0, bytesSent: 0, requests: 0, errors: 0, retryLater: 0, failures: 0 };
  const statuses: Record<string, number> = {};
  const latencies: number[] = [];
  const failureMessages = new Set<string>();
  const warmup = { requests: 0, records: 0, maxMs: 0 };
  const started = performance.now();
  // Requests sent before this are the warm-up: answered and checked, counted apart.
  const measuredFrom = started + options.warmupS * 1000;
  let deadline = measuredFrom + options.durationS * 1000;
  // SIGTERM ends the run early: requests in flight complete (or fail) and the result is printed.
  process.once('SIGTERM', () => (deadline = 0));
  let next = 0;
  let answered = false;
  /** With --rate: records whose slots have been handed out so far. */
  let scheduled = 0;

  /** A warm-up request: any failure ends the run, as the measured load would fail too. */
  const warmUpRequest = async (body: Buffer): Promise<void> => {
    const sentAt = performance.now();
    const outcome = await post(agent, options.url, body, options.authorization);
    if (outcome.status !== 201 && outcome.status !== 503)
      throw new Error(`a warm-up request was answered ${outcome.status}`);
    warmup.requests++;
    warmup.records += outcome.accepted;
    warmup.maxMs = Math.max(warmup.maxMs, performance.now() - sentAt);
    if (outcome.status === 503) await new Promise((resolve) => setTimeout(resolve, outcome.retryAfterS * 1000));
  };

  // Each worker issues requests back to back until the deadline; a request started before it
  // completes and counts, so the elapsed time is measured up to the last response.
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const { body, records } = at(bodies, next++ % bodies.length);
      if (options.rate !== undefined) {
        const slot = started + (scheduled / options.rate) * 1000;
        scheduled += records;
        const waitMs = Math.min(slot, deadline) - performance.now();
        if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
        if (performance.now() >= deadline) break;
      }
      const sentAt = performance.now();
      if (sentAt < measuredFrom) {
        await warmUpRequest(body);
        continue;
      }
      totals.requests++;
      totals.bytesSent += body.length;
      try {
        const outcome = await post(agent, options.url, body, options.authorization);
        // Tells a harness waiting to act under load that the load is flowing.
        if (!answered) {
          answered = true;
          process.stdout.write(`${LOAD_FLOWING}\n`);
        }
        statuses[outcome.status] = (statuses[outcome.status] ?? 0) + 1;
        if (outcome.status === 201) {
          latencies.push(performance.now() - sentAt);
          totals.records += outcome.accepted;
          totals.bytes += body.length;
        } else {
          totals.errors++;
          if (outcome.status === 503) {
            totals.retryLater++;
            // Honour Retry-After like a real forwarder would, but never past the end of the run.
            const waitMs = Math.min(outcome.retryAfterS * 1000, Math.max(0, deadline - performance.now()));
            if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
          }
        }
      } catch (error) {
        totals.errors++;
        totals.failures++;
        if (failureMessages.size < 5) failureMessages.add(error instanceof Error ? error.message : String(error));
        // Back off briefly so a dead server does not turn this loop into a busy spin.
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  };
  await Promise.all(Array.from({ length: options.connections }, () => worker()));
  const seconds = (performance.now() - Math.max(started, measuredFrom)) / 1000;
  agent.destroy();

  latencies.sort((a, b) => a - b);
  const round = (value: number, digits: number): number => Number(value.toFixed(digits));
  const result = {
    records: totals.records,
    // Bytes of accepted bodies, so MB/s describes the same work as records/s.
    bytes: totals.bytes,
    bytes_sent: totals.bytesSent,
    seconds: round(seconds, 3),
    requests: totals.requests,
    errors: totals.errors,
    retry_later_503: totals.retryLater,
    connection_failures: totals.failures,
    statuses,
    // Latencies of accepted requests only: fast 503 answers would otherwise flatter the median.
    p50_ms: round(percentile(latencies, 50), 1),
    p99_ms: round(percentile(latencies, 99), 1),
    max_ms: round(latencies[latencies.length - 1] ?? 0, 1),
    failure_messages: [...failureMessages],
    warmup: {
      seconds: options.warmupS,
      requests: warmup.requests,
      records: warmup.records,
      max_ms: round(warmup.maxMs, 1),
    },
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`load generator failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
