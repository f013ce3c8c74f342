// Open-loop load for bench:overload: starts a request every 1/rate seconds whatever the server
// answers (closed-loop clients slow down with the server and never overload it), up to a cap
// of requests in flight, and reports how each ended — including the ones whose connection
// failed before an answer could be read (EPIPE, ECONNRESET), which a server must avoid. One
// JSON line of results on stdout.
import http from 'node:http';
import { makeBody } from '../common/records.js';
import { seededRandom } from '../../src/core/random.js';
import { at } from '../common/checked.js';

interface Options {
  url: URL;
  rate: number;
  durationS: number;
  maxInFlight: number;
}

function parseOptions(argv: string[]): Options {
  const value = (flag: string): string => {
    const index = argv.indexOf(flag);
    const found = index >= 0 ? argv[index + 1] : undefined;
    if (found === undefined) throw new Error(`${flag} is required`);
    return found;
  };
  const positive = (flag: string): number => {
    const parsed = Number(value(flag));
    if (!Number.isFinite(parsed) || parsed <= 0) throw new Error(`${flag} must be a positive number`);
    return parsed;
  };
  const url = new URL(value('--url'));
  if (url.hostname !== '127.0.0.1' || url.protocol !== 'http:')
    throw new Error(`--url must be http://127.0.0.1:<port>/…; got ${url.href}`);
  return { url, rate: positive('--rate'), durationS: positive('--duration'), maxInFlight: positive('--max-in-flight') };
}

interface Ended {
  status: number;
  accepted: number;
  /** The connection failed before an answer was read: the error code. */
  failure?: string;
}

function post(agent: http.Agent, url: URL, body: Buffer): Promise<Ended> {
  return new Promise((resolve) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        timeout: 120_000,
        headers: { 'Content-Type': 'application/x-ndjson', 'Content-Length': body.length },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', (error: NodeJS.ErrnoException) =>
          resolve({ status: 0, accepted: 0, failure: error.code ?? 'response error' }),
        );
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          let accepted = 0;
          if (status === 201) {
            const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { accepted?: unknown };
            if (typeof parsed.accepted === 'number') accepted = parsed.accepted;
          }
          resolve({ status, accepted });
        });
      },
    );
    request.on('timeout', () => request.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    request.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ status: 0, accepted: 0, failure: error.code ?? error.message }),
    );
    request.end(body);
  });
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const random = seededRandom(20_261_126);
  const bodies = Array.from({ length: 8 }, () => makeBody(random, 1024 * 1024));
  // A socket per request in flight: an overloaded server must cope with many senders at once.
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.maxInFlight });
  const statuses: Record<string, number> = {};
  const failures: Record<string, number> = {};
  let accepted = 0;
  let started = 0;
  let skipped = 0;
  let inFlight = 0;
  const pending = new Set<Promise<void>>();
  const begin = performance.now();
  const interval = 1000 / options.rate;
  for (let i = 0; performance.now() - begin < options.durationS * 1000; i++) {
    const due = begin + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    // Past the cap the generator itself would be the bottleneck; counted, not sent.
    if (inFlight >= options.maxInFlight) {
      skipped++;
      continue;
    }
    const { body } = at(bodies, i % bodies.length);
    started++;
    inFlight++;
    const task = post(agent, options.url, body).then((ended) => {
      inFlight--;
      if (ended.failure) failures[ended.failure] = (failures[ended.failure] ?? 0) + 1;
      else statuses[String(ended.status)] = (statuses[String(ended.status)] ?? 0) + 1;
      accepted += ended.accepted;
    });
    pending.add(task);
    void task.finally(() => pending.delete(task));
  }
  const sendingS = (performance.now() - begin) / 1000;
  await Promise.all(pending);
  agent.destroy();
  process.stdout.write(
    `${JSON.stringify({
      requests: started,
      skipped_at_cap: skipped,
      sending_s: Number(sendingS.toFixed(2)),
      total_s: Number(((performance.now() - begin) / 1000).toFixed(2)),
      accepted_records: accepted,
      records_per_body: at(bodies, 0).records,
      statuses,
      connection_failures: failures,
    })}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`overload generator failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
