// `npm run bench:summary`: what an AI case summary costs through HTTP on the embedded database.
// A real server (in-process, SQLite) holds cases with observations, devices and process events;
// it measures the builtin provider generating summaries of cases never summarised (cache miss),
// a regeneration of an unchanged case (answered from the 24-hour cache), and GET of a case as
// the baseline of the same run. The last stdout line is {"builtin_ms", "cached_ms"} (p50s).
import { performance } from 'node:perf_hooks';
import { databaseTargets } from '../../test/helpers/databases.js';
import { startServer } from '../../test/helpers/server.js';
import {
  apiClient,
  bearer,
  issueToken,
  seedTenant,
  signIn,
  type ApiClient,
  type ApiResponse,
} from '../../test/helpers/api.js';
import type { Page } from '../../test/helpers/responses.js';
import { at } from '../common/checked.js';
import { seededRandom, pick, between } from '../../src/core/random.js';

const CASES = Number(process.argv[process.argv.indexOf('--cases') + 1]) || 40;
const ROUNDS = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 200;
const TECHNIQUES = ['T1059.004', 'T1190', 'T1110.001', 'T1078', 'T1053.003', 'T1105', 'T1071.001', 'T1003.001'];
const LEVELS = ['low', 'medium', 'high', 'critical'];

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function timed(times: number[], call: () => Promise<{ status: number }>, expect: number): Promise<void> {
  const start = performance.now();
  const response = await call();
  times.push(performance.now() - start);
  if (response.status !== expect) throw new Error(`expected ${expect}, got ${response.status}`);
}

function report(label: string, times: number[], baseline?: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  const p50 = percentile(sorted, 50);
  console.log(
    `${label.padEnd(44)} n=${String(times.length).padStart(4)}  p50 ${p50.toFixed(2).padStart(7)} ms  p99 ${percentile(sorted, 99).toFixed(2).padStart(7)} ms` +
      (baseline ? `  ×${(p50 / baseline).toFixed(1)} of GET case` : ''),
  );
  return p50;
}

async function seed(client: ApiClient, server: Awaited<ReturnType<typeof startServer>>): Promise<string[]> {
  const random = seededRandom(11);
  const base = Date.parse('2026-11-20T08:00:00Z');
  // Endpoint telemetry for the hosts, so inputs carry devices, addresses, processes and evidence.
  const records = Array.from({ length: 400 }, (_, i) => ({
    type: 'process',
    timestamp: new Date(base + i * 30_000).toISOString(),
    host: `host-${i % CASES}`,
    host_ip: i % 3 === 0 ? '81.2.69.142' : `10.0.${i % 200}.${(i % 250) + 1}`,
    endpoint_id: `agent-${i % CASES}`,
    user: pick(random, ['root', 'www-data', 'alice']),
    process: { name: 'bash', pid: 1000 + i, executable: '/bin/bash', command_line: `bash -c 'echo ${i}'` },
    parent: { name: 'sshd', pid: 900, executable: '/usr/sbin/sshd', command_line: 'sshd: alice' },
  }));
  const posted = await server.post(records.map((record) => JSON.stringify(record)).join('\n'), {
    'content-type': 'application/x-ndjson',
    host: 'acme-collector.localhost',
  });
  if (posted.status !== 201) throw new Error(`collector answered ${posted.status}`);
  for (let i = 0; i < CASES * 4; i++) {
    const written = await client.post('/v1/observations', {
      external_id: `bench-${i}`,
      rule_id: `bench-rule-${i % 7}`,
      title: `Suspicious activity ${i % 7}`,
      level: pick(random, LEVELS),
      techniques: [pick(random, TECHNIQUES)],
      host: `host-${i % CASES}`,
      first_time: new Date(base + between(random, 0, 3_600_000)).toISOString(),
    });
    if (written.status !== 201)
      throw new Error(`observation write answered ${written.status}: ${JSON.stringify(written.body)}`);
  }
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page: ApiResponse<Page<'cases', { id: string }>> = await client.post('/v1/cases', {
      limit: 500,
      ...(cursor ? { cursor } : {}),
    });
    ids.push(...page.body.cases.map((item) => item.id));
    cursor = page.body.next_cursor ?? undefined;
  } while (cursor);
  return ids;
}

const database = await at(databaseTargets, 0).create();
const server = await startServer(database, { detection: 'off' });
try {
  const acme = await seedTenant(server, 'acme');
  const operator = await signIn(server, { tenant: null, role: 'operator', email: 'bench-operator@example.com' });
  await operator.client.patch(
    '/v1/tenants/acme',
    { observation_write_approved: true },
    { 'sightline-tenant': 'acme', 'x-csrf-token': operator.csrf },
  );
  const client = apiClient(server, bearer((await issueToken(server, acme)).value));
  const ids = await seed(client, server);
  console.log(`bench:summary — SQLite, in-process HTTP, builtin provider; ${ids.length} cases`);

  const get: number[] = [];
  for (let i = 0; i < ROUNDS; i++) await timed(get, () => client.get(`/v1/cases/${ids[i % ids.length]}`), 200);
  const baseline = report('GET /v1/cases/{id} (baseline)', get);

  // Each case once: nothing cached yet for its input.
  const fresh: number[] = [];
  for (const id of ids) await timed(fresh, () => client.post(`/v1/cases/${id}/summary`, {}), 201);
  const builtin = report('POST …/summary, builtin, not cached', fresh, baseline);

  const cached: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const id = at(ids, i % ids.length);
    const start = performance.now();
    const response = await client.post<{ from_cache?: boolean }>(`/v1/cases/${id}/summary`, {});
    cached.push(performance.now() - start);
    if (response.status !== 201 || response.body.from_cache !== true)
      throw new Error(
        `regeneration was not served from the cache: ${response.status} ${JSON.stringify(response.body).slice(0, 200)}`,
      );
  }
  const fromCache = report('POST …/summary, unchanged case (cache)', cached, baseline);
  console.log(`target: cached regeneration ≤ 50 ms: ${fromCache <= 50 ? 'met' : 'NOT met'}`);
  console.log(JSON.stringify({ builtin_ms: Number(builtin.toFixed(2)), cached_ms: Number(fromCache.toFixed(2)) }));
} finally {
  await server.close();
  await database.cleanup();
}
