// bench:timeliness's load: offers each tenant's records at a fixed rate, open loop. A request
// starts at its slot whatever the earlier ones did (a slow server does not slow the offer); only
// past a cap of requests in flight is a slot skipped, and counted. Bodies are NDJSON of
// --per-request records from the mix, made before the run so that making them costs the
// offer nothing. One JSON line of results per tenant on stdout at the end.
//   --url http://127.0.0.1:PORT --duration S --per-request N --tenant CODE:RATE [--tenant …]
import http from 'node:http';
import { seededRandom } from '../../src/core/random.js';
import { mixRecord } from './mix.js';

interface Offer {
  tenant: string;
  rate: number;
}

interface Outcome {
  tenant: string;
  offered_records: number;
  accepted_records: number;
  requests: number;
  skipped: number;
  statuses: Record<string, number>;
  failures: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}

const MAX_IN_FLIGHT = 256;
const BODIES = 32;

function parse(argv: string[]): { url: URL; durationS: number; perRequest: number; offers: Offer[] } {
  const offers: Offer[] = [];
  let url: URL | undefined;
  let durationS = 60;
  let perRequest = 200;
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value = ''] = [argv[i], argv[i + 1]];
    if (flag === '--url') url = new URL(value);
    else if (flag === '--duration') durationS = Number(value);
    else if (flag === '--per-request') perRequest = Number(value);
    else if (flag === '--tenant') {
      const [tenant = '', rate = ''] = value.split(':');
      offers.push({ tenant, rate: Number(rate) });
    } else throw new Error(`unknown flag ${String(flag)}`);
  }
  // The benchmark must never send traffic anywhere but this machine.
  if (url?.hostname !== '127.0.0.1') throw new Error('--url must be http://127.0.0.1:<port>');
  if (!(durationS > 0) || !(perRequest > 0) || offers.some((offer) => !(offer.rate > 0)))
    throw new Error('--duration, --per-request and every rate must be positive');
  return { url, durationS, perRequest, offers };
}

function bodies(tenant: string, perRequest: number): Buffer[] {
  const random = seededRandom(tenant.length * 7919 + perRequest);
  const now = new Date().toISOString();
  return Array.from({ length: BODIES }, () =>
    Buffer.from(Array.from({ length: perRequest }, () => JSON.stringify(mixRecord(random, now))).join('\n')),
  );
}

const quantile = (sorted: number[], q: number): number =>
  sorted.length === 0 ? 0 : (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);

/** Offers one tenant's load until `endAt`; resolves once every request has ended. */
async function offer(
  url: URL,
  agent: http.Agent,
  tenant: Offer,
  perRequest: number,
  durationS: number,
): Promise<Outcome> {
  const made = bodies(tenant.tenant, perRequest);
  const outcome: Outcome = {
    tenant: tenant.tenant,
    offered_records: 0,
    accepted_records: 0,
    requests: 0,
    skipped: 0,
    statuses: {},
    failures: 0,
    p50_ms: 0,
    p99_ms: 0,
    max_ms: 0,
  };
  const latencies: number[] = [];
  const pending = new Set<Promise<void>>();
  const send = (body: Buffer) => {
    const started = performance.now();
    const done = new Promise<void>((resolve) => {
      const request = http.request(
        url,
        {
          method: 'POST',
          agent,
          headers: {
            host: `${tenant.tenant}-collector.localhost`,
            'content-type': 'application/x-ndjson',
            'content-length': body.length,
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            latencies.push(performance.now() - started);
            const status = String(response.statusCode);
            outcome.statuses[status] = (outcome.statuses[status] ?? 0) + 1;
            if (response.statusCode === 201) outcome.accepted_records += perRequest;
            resolve();
          });
        },
      );
      request.on('error', () => {
        outcome.failures++;
        resolve();
      });
      request.end(body);
    });
    pending.add(done);
    void done.then(() => pending.delete(done));
  };
  const intervalMs = (1000 * perRequest) / tenant.rate;
  const start = performance.now();
  let slot = 0;
  while (performance.now() - start < durationS * 1000) {
    const due = start + slot * intervalMs;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    slot++;
    outcome.offered_records += perRequest;
    if (pending.size >= MAX_IN_FLIGHT) {
      outcome.skipped++;
      continue;
    }
    outcome.requests++;
    send(made[slot % made.length] ?? Buffer.alloc(0));
  }
  await Promise.all(pending);
  latencies.sort((a, b) => a - b);
  outcome.p50_ms = Math.round(quantile(latencies, 0.5));
  outcome.p99_ms = Math.round(quantile(latencies, 0.99));
  outcome.max_ms = Math.round(latencies.at(-1) ?? 0);
  return outcome;
}

async function main(): Promise<void> {
  const { url, durationS, perRequest, offers } = parse(process.argv.slice(2));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const target = new URL('/log_sink', url);
  process.stdout.write('offering\n');
  const outcomes = await Promise.all(offers.map((each) => offer(target, agent, each, perRequest, durationS)));
  agent.destroy();
  for (const outcome of outcomes) process.stdout.write(`${JSON.stringify(outcome)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`offer failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
