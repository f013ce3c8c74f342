// `sightline demo`: sends simulated traffic (src/demo/traffic.ts) — mostly benign, with attacks of
// every rule family woven in — to a running collector, so a newcomer sees observations within a
// minute. A client of the collector like any forwarder: it only talks HTTP to `/log_sink`.
import http from 'node:http';
import https from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import { loadConfig, parseDuration } from '../config/config.js';
import { AppError, problems, type ProblemCode } from '../core/errors.js';
import { codeNameRule, isValidCodeName } from '../core/code-name.js';
import {
  ATTACK_FAMILIES,
  createTraffic,
  DEFAULT_RATE,
  type AttackFamily,
  type GeneratedRecord,
} from '../demo/traffic.js';
import { addSettingOptions, parsePositiveInteger, settingValues, storageSettings } from './options.js';

const BATCH_INTERVAL_MS = 250;
const REPORT_INTERVAL_MS = 5_000;
const REQUEST_TIMEOUT_MS = 10_000;
const MAX_DURATION_MS = 24 * 3_600_000;

interface Target {
  /** Where the records go, for messages. */
  url: URL;
  /** The Host header: the tenant's collector address with --tenant, else the URL's host. */
  host: string;
  /** The address to connect to: `*.localhost` names are loopback (RFC 6761) though Node's resolver does not know them. */
  connectTo: string;
  label: string;
  /** The tenant's collector ingest key, when it requires one. */
  ingestKey?: string;
}

export function registerDemo(program: Command): void {
  addSettingOptions(
    program
      .command('demo')
      .description('Send realistic mixed traffic, with attacks of every rule family woven in, to a running collector')
      .option('--url <url>', 'the Sightline server (or its /log_sink URL)', 'http://127.0.0.1:8080')
      .option(
        '--tenant <code_name>',
        "send to this tenant: Host <code_name>-collector.<base-domain> (default: the server's default tenant)",
      )
      .option('--duration <span>', 'how long to send, e.g. 30s, 5m', '60s')
      .option('--rate <n>', 'background records per second; attacks come on top', String(DEFAULT_RATE))
      .option('--seed <n>', 'seed for the simulated traffic (default: random, printed)')
      .option(
        '--ingest-key <key>',
        "the tenant's collector ingest key, when it requires one (default: the environment variable SIGHTLINE_INGEST_KEY, which keeps it out of the process list)",
      ),
    ['baseDomain', ...storageSettings],
    {
      dataDir:
        'The data directory the server runs with: the follow-up commands printed at the end name it (the demo itself only talks HTTP).',
      databaseUrl:
        'The database URL the server runs with, if not the embedded one: the printed follow-up commands name it.',
    },
  ).action(async (options: Record<string, string | undefined>) => {
    const target = resolveTarget(options);
    const durationMs = parseSpan(options.duration ?? '60s');
    const rate = parsePositiveInteger('--rate', options.rate) ?? DEFAULT_RATE;
    const seed = options.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : parseSeed(options.seed);
    const { dataDir, databaseUrl } = loadConfig(settingValues(options, storageSettings));
    const storage = databaseUrl === '' ? `--data ${shellQuote(dataDir)}` : `--database ${shellQuote(databaseUrl)}`;
    await runDemo(target, { durationMs, rate, seed, storage });
  });
}

function resolveTarget(options: Record<string, string | undefined>): Target {
  let url: URL;
  try {
    url = new URL(options.url ?? 'http://127.0.0.1:8080');
  } catch {
    throw new AppError(
      'invalid_request',
      `--url must be an http(s) URL such as http://127.0.0.1:8080; got ${JSON.stringify(options.url)}`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new AppError('invalid_request', `--url must be http or https; got ${JSON.stringify(options.url)}`);
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/log_sink';
  const tenant = options.tenant;
  let host = url.host;
  if (tenant !== undefined) {
    if (!isValidCodeName(tenant))
      throw new AppError('invalid_code_name', `--tenant ${codeNameRule}; got ${JSON.stringify(tenant)}`);
    const { baseDomain } = loadConfig(settingValues(options, ['baseDomain']));
    host = `${tenant}-collector.${baseDomain}${url.port ? `:${url.port}` : ''}`;
  }
  const hostname = url.hostname.toLowerCase();
  const connectTo = hostname === 'localhost' || hostname.endsWith('.localhost') ? '127.0.0.1' : url.hostname;
  const ingestKey = options.ingestKey ?? process.env.SIGHTLINE_INGEST_KEY;
  return {
    url,
    host,
    connectTo,
    ...(ingestKey ? { ingestKey } : {}),
    label: tenant === undefined ? `${url.href} (Host ${host})` : `${url.href} (tenant ${tenant}, Host ${host})`,
  };
}

function parseSpan(raw: string): number {
  const value = parseDuration(raw);
  if (value === undefined || value < 1_000 || value > MAX_DURATION_MS) {
    throw new AppError(
      'invalid_request',
      `--duration must be a span from 1s to 24h such as 30s, 5m; got ${JSON.stringify(raw)}`,
    );
  }
  return value;
}

function parseSeed(raw: string): number {
  if (!/^\d{1,10}$/.test(raw) || Number(raw) > 2 ** 32 - 1)
    throw new AppError('invalid_request', `--seed must be an integer from 0 to 4294967295; got ${JSON.stringify(raw)}`);
  return Number(raw);
}

class Tally {
  records = 0;
  attacks = 0;
  readonly byFamily = new Map<AttackFamily, number>(ATTACK_FAMILIES.map((family) => [family, 0]));
  /** Attack names first seen since the last report. */
  fresh = new Set<string>();
  private readonly seen = new Set<string>();

  add(batch: readonly GeneratedRecord[]): void {
    this.records += batch.length;
    for (const { attack } of batch) {
      if (!attack) continue;
      this.attacks++;
      this.byFamily.set(attack.family, (this.byFamily.get(attack.family) ?? 0) + 1);
      if (!this.seen.has(attack.name)) this.fresh.add(attack.name);
      this.seen.add(attack.name);
    }
  }

  families(): string {
    return (
      [...this.byFamily]
        .filter(([, count]) => count > 0)
        .map(([family, count]) => `${family} ${count}`)
        .join(', ') || 'none yet'
    );
  }
}

/** A word the shell reads back as is: single-quoted unless it is plainly safe. */
function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

async function runDemo(
  target: Target,
  settings: { durationMs: number; rate: number; seed: number; storage: string },
): Promise<void> {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(
    `sending demo traffic to ${target.label} for ${settings.durationMs / 1000} s: ${settings.rate} background records/s with attacks of every family woven in (seed ${settings.seed})`,
  );

  // A controller rather than a flag: the handler sets it while the loop below awaits.
  const interrupt = new AbortController();
  const onSigint = () => interrupt.abort();
  process.once('SIGINT', onSigint);
  const tally = new Tally();
  const start = Date.now();
  const end = start + settings.durationMs;
  const traffic = createTraffic({ seed: settings.seed, start, rate: settings.rate });
  let lastReport = start;
  let tick = start;
  try {
    for (;;) {
      tick += BATCH_INTERVAL_MS;
      await sleep(Math.max(0, tick - Date.now()));
      const now = Math.min(Date.now(), end);
      // A slow answer is not caught up with a burst: the next batch just covers more time.
      tick = Math.max(tick, now);
      const batch = traffic.next(now);
      if (batch.length > 0) await post(target, batch);
      tally.add(batch);
      const done = now >= end || interrupt.signal.aborted;
      if (now - lastReport >= REPORT_INTERVAL_MS || done) {
        const fresh = [...tally.fresh];
        tally.fresh.clear();
        out(
          `[${String(Math.round((now - start) / 1000)).padStart(3)}s] ${tally.records} records sent, ${tally.attacks} attack records (${tally.families()})${fresh.length ? `; new: ${fresh.join(', ')}` : ''}`,
        );
        lastReport = now;
      }
      if (done) break;
    }
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
  const tenant = /^([a-z][a-z0-9-]*)-collector\./.exec(target.host)?.[1];
  const base = target.url.origin;
  out(
    `done${interrupt.signal.aborted ? ' (interrupted)' : ''}: ${tally.records} records in ${Math.round((Date.now() - start) / 1000)} s, ${tally.attacks} of them attacks (${tally.families()}).\n` +
      `Observations, and the cases they are grouped into, appear within seconds. To list them:\n` +
      `  TOKEN=$(npx sightline token create ${settings.storage} --tenant ${tenant ?? 'demo'} --name demo --permissions observations:read,cases:read,devices:read)\n` +
      `  curl -H "Authorization: Bearer $TOKEN" ${base}/v1/observations\n` +
      `  curl -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d '{"sort":"score"}' ${base}/v1/cases`,
  );
}

/** One NDJSON batch; resolves when the collector answered 201, throws with its problem otherwise. */
function post(target: Target, batch: readonly GeneratedRecord[]): Promise<void> {
  const body = Buffer.from(batch.map((generated) => JSON.stringify(generated.record)).join('\n') + '\n');
  const client = target.url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    // node:http rather than fetch: fetch does not send a custom Host header, and the collector routes tenants by Host.
    const request = client.request(
      {
        protocol: target.url.protocol,
        host: target.connectTo,
        port: target.url.port || undefined,
        path: `${target.url.pathname}${target.url.search}`,
        method: 'POST',
        servername: target.url.hostname,
        timeout: REQUEST_TIMEOUT_MS,
        headers: {
          host: target.host,
          'content-type': 'application/x-ndjson',
          'content-length': body.length,
          ...(target.ingestKey ? { authorization: `Bearer ${target.ingestKey}` } : {}),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          if (response.statusCode === 201) resolve();
          else reject(collectorError(target, response.statusCode ?? 0, Buffer.concat(chunks).toString('utf8')));
        });
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS / 1000} s`)));
    request.on('error', (error) => {
      reject(
        new Error(
          `error: cannot reach the collector at ${target.url.href}: ${error.message}. Is \`sightline serve\` running there?`,
          { cause: error },
        ),
      );
    });
    request.end(body);
  });
}

/** The collector's RFC 9457 problem as an error naming its code and detail; any other answer quoted. */
function collectorError(target: Target, status: number, text: string): Error {
  let problem: { code?: unknown; detail?: unknown; title?: unknown } | undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null) problem = parsed;
  } catch {
    problem = undefined; // not JSON: quoted below
  }
  const where = `the collector at ${target.url.href} (Host ${target.host}) answered ${status}`;
  if (problem && typeof problem.code === 'string' && problem.code in problems) {
    return new AppError(
      problem.code as ProblemCode,
      `${where}: ${typeof problem.detail === 'string' ? problem.detail : typeof problem.title === 'string' ? problem.title : ''}`,
    );
  }
  return new Error(`error: ${where}: ${text.slice(0, 500) || '(empty body)'}`);
}
