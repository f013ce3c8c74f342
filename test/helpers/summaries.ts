// Shared by the AI case summary suites: tenants approved to write observations, observations and
// endpoint records as the cases and devices suites write them, what a fake LLM was sent (the case
// data between <case_data> and </case_data>), a well-formed model answer, the local monitoring
// files, /metrics, and polling with a deadline.
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TestServer } from './server.js';
import { apiClient, bearer, issueToken, seedTenant, type ApiClient, type Session } from './api.js';
import type { FakeLlmRequest } from './fake-llm.js';
import type { CaseSearch, Page, Readiness } from './responses.js';
import { allPermissions } from '../../src/identity/permissions.js';
import type { Tenant } from '../../src/identity/tenants/tenant-service.js';
import type { CaseView } from '../../src/cases/case-service.js';
import type { ObservationView } from '../../src/observations/observation-service.js';
import type { DeviceView } from '../../src/devices/device-service.js';
import type { SummaryInput } from '../../src/summaries/summary-input.js';

/** The fixed sections, in order, as the issue names them (written out, not imported). */
export const HEADINGS = [
  'Overview',
  'Timeline',
  'Affected devices and users',
  'Techniques',
  'Key evidence',
  'Recommended next steps',
] as const;

/** Polls `check` until it returns a value other than undefined/false, or fails after `ms`. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined | false>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/** Operator changes to a tenant (PATCH /v1/tenants/{code}). */
export async function setTenant(operator: Session, codeName: string, changes: Record<string, unknown>): Promise<void> {
  const response = await operator.client.patch(`/v1/tenants/${codeName}`, changes, {
    'sightline-tenant': codeName,
    'x-csrf-token': operator.csrf,
  });
  assert.equal(response.status, 200, JSON.stringify(response.body));
}

/** A tenant the operator approved to write observations, with an admin token (every permission). */
export async function approvedTenant(
  server: TestServer,
  operator: Session,
  codeName: string,
): Promise<{ tenant: Tenant; client: ApiClient }> {
  const tenant = await seedTenant(server, codeName);
  await setTenant(operator, codeName, { observation_write_approved: true });
  const client = apiClient(
    server,
    bearer((await issueToken(server, tenant, allPermissions, { name: `${codeName} admin` })).value),
  );
  return { tenant, client };
}

let sequence = 0;

export async function observe(
  client: ApiClient,
  input: { host?: string; title?: string; level?: string; techniques?: string[]; time?: string } = {},
): Promise<ObservationView> {
  sequence++;
  const response = await client.post<ObservationView>('/v1/observations', {
    external_id: `sum-ext-${process.pid}-${sequence}`,
    title: input.title ?? `Summary detection ${sequence}`,
    level: input.level ?? 'high',
    techniques: input.techniques ?? ['T1059'],
    first_time: input.time ?? new Date(Date.now() - 60 * 60_000).toISOString(),
    ...(input.host !== undefined ? { host: input.host } : {}),
  });
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return response.body;
}

/** The one case whose search text holds `text` (a host name one test uses). */
export async function caseFor(client: ApiClient, text: string): Promise<CaseView> {
  const found = await client.post<CaseSearch>('/v1/cases', { text });
  assert.equal(found.status, 200, JSON.stringify(found.body));
  assert.equal(found.body.total, 1, `one case mentions ${text}: ${JSON.stringify(found.body.cases)}`);
  return found.body.cases[0]!;
}

/** Posts endpoint records (generic shape) to the tenant's collector; waits until detection read them and the host's device exists. */
export async function postRecords(
  server: TestServer,
  client: ApiClient,
  codeName: string,
  records: Record<string, unknown>[],
  host: string,
): Promise<void> {
  const body = records.map((record) => JSON.stringify(record)).join('\n') + '\n';
  const response = await server.post(body, {
    'content-type': 'application/x-ndjson',
    host: `${codeName}-collector.localhost`,
  });
  assert.equal(response.status, 201, await response.text());
  await waitFor(
    `detection to read ${codeName}'s records`,
    async () => {
      const ready = await apiClient(server).get<Readiness>('/readyz');
      if (ready.body.detection_lag_records !== 0) return false;
      const devices = await client.get<Page<'devices', DeviceView>>(`/v1/devices?name=${encodeURIComponent(host)}`);
      return devices.body.devices.length > 0;
    },
    20_000,
  );
}

export interface SentPrompt {
  system: string;
  user: string;
  /** The JSON between <case_data> and </case_data>, parsed. */
  data: SummaryInput;
  /** The JSON text as sent. */
  json: string;
}

/** What the model was sent, from an OpenAI Chat Completions or Anthropic Messages request. */
export function sentPrompt(request: FakeLlmRequest): SentPrompt {
  const body = request.body ?? {};
  const messages = body.messages as { role: string; content: string }[];
  const system =
    typeof body.system === 'string' ? body.system : messages.find((message) => message.role === 'system')!.content;
  const user = messages.find((message) => message.role === 'user')!.content;
  const match = /<case_data>\n([\s\S]*)\n<\/case_data>$/.exec(user);
  assert.ok(match, `the user message delimits the case data: ${user.slice(0, 200)}`);
  return { system, user, json: match[1]!, data: JSON.parse(match[1]!) as SummaryInput };
}

/** A well-formed answer in the six sections, citing every observation of the case data. */
export function wellFormedReply(data: SummaryInput): string {
  const cites = data.observations.map((observation) => `[${observation.id}]`).join(' ');
  return HEADINGS.map(
    (heading) => `## ${heading}\nAbout ${heading.toLowerCase()} of case #${data.case.number} ${cites}`,
  ).join('\n\n');
}

export interface MonitoringLine {
  type: 'generation' | 'feedback';
  tenant: string;
  case_id: string;
  summary_id: string;
  user_id: string | null;
  input?: { system: string; user: string };
  output?: string;
  rating?: string;
  comment?: string | null;
  status?: string;
}

/** Every record in <dataDir>/ai-monitoring/{generations,feedback}-*.ndjson. */
export async function monitoringLines(dataDir: string, kind: 'generations' | 'feedback'): Promise<MonitoringLine[]> {
  const dir = path.join(dataDir, 'ai-monitoring');
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return [];
  }
  const lines: MonitoringLine[] = [];
  for (const name of names.filter((file) => file.startsWith(`${kind}-`) && file.endsWith('.ndjson')).sort()) {
    const text = await fs.readFile(path.join(dir, name), 'utf8');
    // The server may be writing the file while it is read: a last line without its newline is not complete yet.
    const complete = text.slice(0, text.lastIndexOf('\n') + 1);
    for (const line of complete.split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as MonitoringLine);
  }
  return lines;
}

/** A counter's value in /metrics (0 when the series is not there yet). */
export async function metricValue(server: TestServer, name: string, labels: Record<string, string>): Promise<number> {
  const text = await server.metrics();
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match?.[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((pair) => [pair[1]!, pair[2]!]),
    );
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return 0;
}
