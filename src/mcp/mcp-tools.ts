// The tools an MCP client may call: read-only views of one tenant's cases, observations,
// telemetry, devices and ATT&CK coverage. Each is bounded (rows, time span) so that a model's
// call stays cheap, and each reads through the /v1 API with the caller's credentials.
import * as z from 'zod';
import type { Permission } from '../identity/permissions.js';
import { callJson, callText, ToolFailure, type ApiCaller } from './api-caller.js';

export const MAX_CASES = 50;
export const MAX_ROWS = 100;
/** A case's observations and comments shown by get_case; the case counts the rest. */
const CASE_OBSERVATIONS = 50;
const CASE_COMMENTS = 20;
const DAY_MS = 86_400_000;
/** search_telemetry without `since` looks this far back from `until`. */
export const DEFAULT_TELEMETRY_DAYS = 7;
/** The longest time span one search_telemetry call may cover. */
export const MAX_TELEMETRY_DAYS = 31;

export interface ToolSpec<Shape extends z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  /** The permission the tool needs; a token without it is not offered the tool. */
  permission: Permission;
  input: Shape;
  /** The tool's answer as JSON text. */
  run(args: z.output<z.ZodObject<Shape>>, api: ApiCaller): Promise<string>;
}

const time = (description: string) => z.iso.datetime({ offset: true }).optional().describe(description);
const technique = z
  .string()
  .regex(/^T[0-9]{4}(\.[0-9]{3})?$/)
  .describe('ATT&CK technique id, e.g. T1190 or T1059.001');
const limit = (max: number) =>
  z.number().int().min(1).max(max).default(20).describe(`Rows to return (1-${max}; more is refused)`);
const cursor = z.string().max(512).optional().describe('The next_cursor of the previous answer, same filters');

const searchCasesInput = {
  status: z
    .array(z.enum(['new', 'in_progress', 'on_hold', 'closed']))
    .max(4)
    .optional(),
  severity: z
    .array(z.enum(['low', 'medium', 'high', 'critical']))
    .max(4)
    .optional(),
  score_min: z.number().int().min(0).max(100).optional(),
  score_max: z.number().int().min(0).max(100).optional(),
  tags: z.array(z.string().min(1).max(64)).max(20).optional().describe('Cases carrying every one of these tags'),
  device_id: z.string().max(64).optional(),
  technique: technique.optional(),
  text: z.string().max(200).optional().describe('Free text: case number, title, description, host names or tags'),
  created_after: time('Created at or after (ISO 8601)'),
  created_before: time('Created before (ISO 8601)'),
  updated_after: time('Changed after (ISO 8601)'),
  updated_before: time('Changed before (ISO 8601)'),
  sort: z.enum(['created', 'updated', 'score']).optional(),
  order: z.enum(['desc', 'asc']).optional(),
  limit: limit(MAX_CASES),
  cursor,
};

export const searchCases: ToolSpec<typeof searchCasesInput> = {
  name: 'search_cases',
  title: 'Search cases',
  description:
    "Search the tenant's cases (newest first unless sorted otherwise). Filters combine with AND. Answers the cases with their AI summaries when one was generated, and next_cursor for the next page.",
  permission: 'cases:read',
  input: searchCasesInput,
  run: (args, api) => callText(api, { method: 'POST', path: '/cases', body: args }),
};

const getCaseInput = {
  case_id: z.string().min(1).max(64).describe('The case id (case_…) or its number'),
};
interface CaseDetail {
  observations: unknown[];
  comments: unknown[];
}
export const getCase: ToolSpec<typeof getCaseInput> = {
  name: 'get_case',
  title: 'Get a case',
  description: `One case with its devices, techniques, its first ${CASE_OBSERVATIONS} observations and ${CASE_COMMENTS} comments (observation_count has the total), and its AI summary if one was generated (reading never generates one).`,
  permission: 'cases:read',
  input: getCaseInput,
  run: async (args, api) => {
    const detail = await callJson<CaseDetail>(api, {
      method: 'GET',
      path: `/cases/${encodeURIComponent(args.case_id)}`,
    });
    return JSON.stringify({
      ...detail,
      observations: detail.observations.slice(0, CASE_OBSERVATIONS),
      comments: detail.comments.slice(0, CASE_COMMENTS),
    });
  },
};

const searchTelemetryInput = {
  query: z
    .string()
    .max(2000)
    .optional()
    .describe(
      'Telemetry query language: bare words (full text), "a phrase", field:value, field:>=500, field:[1 TO 5], _exists_:field, AND / OR / NOT, parentheses',
    ),
  since: time(`Receive time from (inclusive); default ${DEFAULT_TELEMETRY_DAYS} days before until`),
  until: time('Receive time before (exclusive); default now'),
  order: z.enum(['asc', 'desc']).default('desc').describe('desc (default): newest first'),
  limit: limit(MAX_ROWS),
  cursor,
};
export const searchTelemetry: ToolSpec<typeof searchTelemetryInput> = {
  name: 'search_telemetry',
  title: 'Search telemetry',
  description: `Search the raw records the collector stored, by query and receive time. The span from since to until is at most ${MAX_TELEMETRY_DAYS} days.`,
  permission: 'telemetry:read',
  input: searchTelemetryInput,
  run: (args, api) => {
    const { since, until } = telemetryWindow(args.since, args.until, Date.now());
    // The API's answer is passed on as it came: records keep every digit they were sent with.
    return callText(api, { method: 'POST', path: '/telemetry/search', body: { ...args, since, until } });
  },
};

/** The time span of a telemetry search: defaulted, and refused when longer than allowed. */
export function telemetryWindow(since: string | undefined, until: string | undefined, now: number) {
  const end = until ? Date.parse(until) : now;
  const start = since ? Date.parse(since) : end - DEFAULT_TELEMETRY_DAYS * DAY_MS;
  if (end - start > MAX_TELEMETRY_DAYS * DAY_MS)
    throw new ToolFailure(`since to until spans more than ${MAX_TELEMETRY_DAYS} days; search a shorter window`);
  return { since: new Date(start).toISOString(), until: new Date(end).toISOString() };
}

const listObservationsInput = {
  level: z
    .array(z.enum(['informational', 'low', 'medium', 'high', 'critical']))
    .max(5)
    .optional()
    .describe('Any of these Sigma levels'),
  technique: technique.optional().describe('A technique; a parent technique also finds its sub-techniques'),
  host: z.string().max(255).optional().describe('Device host name'),
  since: time('Observations whose last record is at or after this time'),
  until: time('Observations whose first record is before this time'),
  limit: limit(MAX_ROWS),
  cursor,
};
export const listObservations: ToolSpec<typeof listObservationsInput> = {
  name: 'list_observations',
  title: 'List observations',
  description: "The tenant's observations (what detection rules and external writers found), newest first.",
  permission: 'observations:read',
  input: listObservationsInput,
  run: (args, api) =>
    callText(api, {
      method: 'GET',
      path: '/observations',
      query: { ...args, level: args.level?.join(',') },
    }),
};

const getDeviceInput = {
  device_id: z.string().max(64).optional().describe('The device id (dev_…)'),
  host: z.string().min(1).max(253).optional().describe('The host name (exact, case-insensitive)'),
};
export const getDevice: ToolSpec<typeof getDeviceInput> = {
  name: 'get_device',
  title: 'Get a device',
  description:
    'One device by id or host name, with its addresses, the processes seen on it and its cases. Give device_id or host.',
  permission: 'devices:read',
  input: getDeviceInput,
  run: async (args, api) => {
    const id = args.device_id ?? (await deviceIdOfHost(api, args.host));
    return callText(api, { method: 'GET', path: `/devices/${encodeURIComponent(id)}` });
  },
};

async function deviceIdOfHost(api: ApiCaller, host: string | undefined): Promise<string> {
  if (host === undefined) throw new ToolFailure('give device_id or host');
  // The list filters by part of the name; the exact host is among the matches when it exists.
  const page = await callJson<{ devices: { id: string; host_name: string }[] }>(api, {
    method: 'GET',
    path: '/devices',
    query: { name: host, limit: MAX_ROWS },
  });
  const device = page.devices.find((candidate) => candidate.host_name.toLowerCase() === host.toLowerCase());
  if (!device) throw new ToolFailure(`no device has the host name ${JSON.stringify(host)}`);
  return device.id;
}

const attackCoverageInput = { technique };
interface TechniqueCoverage {
  id: string;
  name: string;
  status: string;
  combined_status: string;
  subtechniques: string[];
}
interface Coverage {
  attack_version: string;
  window: unknown;
  techniques: TechniqueCoverage[];
}
export const attackCoverage: ToolSpec<typeof attackCoverageInput> = {
  name: 'attack_coverage',
  title: 'ATT&CK coverage of a technique',
  description:
    "Whether the loaded detection rules (bundled and imported) cover an ATT&CK technique, and whether it is live: a covering rule's logsource appeared in the tenant's telemetry within the window. covered and live count the technique's sub-techniques too.",
  permission: 'observations:read',
  input: attackCoverageInput,
  run: async (args, api) => {
    const coverage = await callJson<Coverage>(api, { method: 'GET', path: '/attack/coverage' });
    const entry = coverage.techniques.find((candidate) => candidate.id === args.technique);
    if (!entry)
      throw new ToolFailure(`${args.technique} is not in the bundled ATT&CK ${coverage.attack_version} catalogue`);
    const subtechniques = coverage.techniques
      .filter((candidate) => entry.subtechniques.includes(candidate.id))
      .map(({ id, name, status }) => ({ id, name, status }));
    return JSON.stringify({
      attack_version: coverage.attack_version,
      window: coverage.window,
      covered: entry.combined_status !== 'uncovered',
      live: entry.combined_status === 'live',
      technique: entry,
      subtechniques,
    });
  },
};
