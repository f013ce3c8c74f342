// bench:query's scenarios: the requests measured (POST /v1/cases with the common filters,
// GET /v1/cases/counts, GET /v1/cases/{id} by id and by number, GET /healthz as the baseline),
// each with the check of its answer against the model of the seeded data: status, total and
// total_relation, page size, each filter's first page in order, the counts, a case's parts.
import { DEFAULT_TRACK_TOTAL } from '../../src/cases/case-search-schemas.js';
import { pick, seededRandom } from '../../src/core/random.js';
import { DAY, PAGE, type ModelCase, type Seeded, type SeedUser } from './query-model.js';
import { at, present } from '../common/checked.js';

interface SearchBody {
  status?: string[];
  severity?: string[];
  score_min?: number;
  assignee?: string;
  technique?: string;
  tags?: string[];
  device_id?: string;
  updated_after?: string;
  text?: string;
  sort?: 'created' | 'updated' | 'score';
  limit: number;
}

interface Request {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  /** Why the response is wrong, or undefined. */
  check: (status: number, body: unknown) => string | undefined;
}

export interface Scenario {
  key: string;
  label: string;
  group: 'baseline' | 'search' | 'counts' | 'get';
  /** The request for iteration i (filters rotate among values: devices, assignees, ids). */
  request: (i: number) => Request;
  /** Matching cases (searches): the distinct totals seen. */
  totals?: Set<number>;
}

const isObject = (body: unknown): body is Record<string, unknown> => typeof body === 'object' && body !== null;

function matches(model: ModelCase, body: SearchBody, users: readonly SeedUser[]): boolean {
  if (body.status && !body.status.includes(model.status)) return false;
  if (body.severity && !body.severity.includes(model.severity)) return false;
  if (body.score_min !== undefined && model.score < body.score_min) return false;
  if (body.assignee !== undefined) {
    const user = users.find((candidate) => candidate.email === body.assignee || candidate.id === body.assignee);
    if (user?.id !== model.assigneeId) return false;
  }
  if (body.technique !== undefined) {
    const technique = body.technique;
    if (!model.techniques.some((id) => id === technique || id.startsWith(`${technique}.`))) return false;
  }
  if (body.tags && !body.tags.every((tag) => model.tags.includes(tag))) return false;
  if (body.device_id !== undefined && !model.deviceIds.includes(body.device_id)) return false;
  if (body.updated_after !== undefined && !(model.updatedAt > Date.parse(body.updated_after))) return false;
  if (body.text !== undefined && !model.searchText.includes(body.text.trim().toLowerCase())) return false;
  return true;
}

/** The expected total and first page (ids) of a search, from the model; memoised per body. */
function expectation(seeded: Seeded): (body: SearchBody) => { total: number; page: string[] } {
  const memo = new Map<string, { total: number; page: string[] }>();
  return (body) => {
    const key = JSON.stringify(body);
    let hit = memo.get(key);
    if (!hit) {
      const found = seeded.cases.filter((model) => matches(model, body, seeded.users));
      const value = (model: ModelCase) =>
        body.sort === 'score' ? model.score : body.sort === 'updated' ? model.updatedAt : model.createdAt;
      found.sort((a, b) => value(b) - value(a) || b.seq - a.seq);
      hit = { total: found.length, page: found.slice(0, body.limit).map((model) => model.id) };
      memo.set(key, hit);
    }
    return hit;
  };
}

/** Why a counts answer differs from the seeded data, or undefined. */
function checkCounts(seeded: Seeded, body: unknown): string | undefined {
  const byStatus: Record<string, number> = { new: 0, in_progress: 0, on_hold: 0, closed: 0 };
  const openBySeverity: Record<string, number> = { low: 0, medium: 0, high: 0, critical: 0 };
  for (const model of seeded.cases) {
    byStatus[model.status] = present(byStatus[model.status], `status ${model.status}`) + 1;
    if (model.status !== 'closed')
      openBySeverity[model.severity] = present(openBySeverity[model.severity], `severity ${model.severity}`) + 1;
  }
  const expected = { by_status: byStatus, open_by_severity: openBySeverity };
  return JSON.stringify(body) === JSON.stringify(expected) ? undefined : `expected ${JSON.stringify(expected)}`;
}

export function scenarios(seeded: Seeded): Scenario[] {
  const expect = expectation(seeded);
  const firstPageChecked = new Set<string>();
  const search = (key: string, label: string, bodyFor: (i: number) => SearchBody): Scenario => {
    const totals = new Set<number>();
    return {
      key,
      label,
      group: 'search',
      totals,
      request: (i) => {
        const body = bodyFor(i);
        const text = JSON.stringify(body);
        return {
          method: 'POST',
          path: '/v1/cases',
          body: text,
          check: (status, response) => {
            if (status !== 200) return `status ${status}`;
            if (!isObject(response) || !Array.isArray(response.cases) || typeof response.total !== 'number')
              return 'not a case list';
            const expected = expect(body);
            totals.add(expected.total);
            // No track_total in the body: counted up to the default, then "at least".
            const total = Math.min(expected.total, DEFAULT_TRACK_TOTAL);
            const relation = expected.total > DEFAULT_TRACK_TOTAL ? 'gte' : 'eq';
            if (response.total !== total || response.total_relation !== relation) {
              return `total ${response.total} (${String(response.total_relation)}), expected ${total} (${relation}): the seeded data has ${expected.total} matching ${text}`;
            }
            if (response.cases.length !== expected.page.length)
              return `${response.cases.length} cases on the page, expected ${expected.page.length}`;
            if (!firstPageChecked.has(text)) {
              firstPageChecked.add(text);
              const ids = response.cases.map((item) => (isObject(item) ? item.id : undefined));
              const wrong = ids.findIndex((id, index) => id !== expected.page[index]);
              if (wrong >= 0)
                return `case ${wrong} on the first page is ${String(ids[wrong])}, expected ${expected.page[wrong]} (${text})`;
            }
            return undefined;
          },
        };
      },
    };
  };
  const random = seededRandom(7_301);
  // Rotating values: 64 devices that hold cases, the analysts, random cases.
  const withCases = [...new Set(seeded.cases.flatMap((model) => model.deviceIds))];
  const deviceIds = Array.from({ length: 64 }, () => pick(random, withCases));
  const assignees = seeded.users.map((user) => user.email);
  const caseAt = (i: number) => at(seeded.cases, Math.floor(seededRandom(i * 2_654_435_761)() * seeded.cases.length));
  const recent = new Date(seeded.now - DAY).toISOString();
  const get = (key: string, label: string, ref: (model: ModelCase) => string): Scenario => ({
    key,
    label,
    group: 'get',
    request: (i) => {
      const model = caseAt(i + (key === 'get_number' ? 1_000_003 : 0));
      return {
        method: 'GET',
        path: `/v1/cases/${ref(model)}`,
        check: (status, body) => {
          if (status !== 200) return `status ${status}`;
          if (!isObject(body) || body.id !== model.id || body.number !== model.number)
            return `expected case ${model.id} (#${model.number})`;
          if (!Array.isArray(body.observations) || body.observations.length !== model.observations)
            return `expected ${model.observations} observations`;
          if (!Array.isArray(body.devices) || body.devices.length !== model.deviceIds.length)
            return `expected ${model.deviceIds.length} devices`;
          if (!Array.isArray(body.comments) || body.comments.length !== model.comments)
            return `expected ${model.comments} comments`;
          return undefined;
        },
      };
    },
  });
  return [
    {
      key: 'healthz',
      label: 'GET /healthz (baseline: no auth, no DB)',
      group: 'baseline',
      request: () => ({
        method: 'GET',
        path: '/healthz',
        check: (status, body) =>
          status === 200 && isObject(body) && body.status === 'ok' ? undefined : `status ${status}`,
      }),
    },
    search('default', '{} (newest first)', () => ({ limit: PAGE })),
    search('open', "status ['new','in_progress']", () => ({ status: ['new', 'in_progress'], limit: PAGE })),
    search('new_by_score', "status ['new'], sort score", () => ({ status: ['new'], sort: 'score', limit: PAGE })),
    search('severe', "severity ['high','critical'], score_min 60", () => ({
      severity: ['high', 'critical'],
      score_min: 60,
      limit: PAGE,
    })),
    search('assignee', 'assignee <email> (6 users)', (i) => ({
      assignee: at(assignees, i % assignees.length),
      limit: PAGE,
    })),
    search('technique', "technique 'T1059' (+ sub-techniques)", () => ({ technique: 'T1059', limit: PAGE })),
    search('tag', "tags ['pci']", () => ({ tags: ['pci'], limit: PAGE })),
    search('device', 'device_id (64 devices)', (i) => ({
      device_id: at(deviceIds, i % deviceIds.length),
      limit: PAGE,
    })),
    search('updated_after', 'updated_after now − 24 h', () => ({ updated_after: recent, limit: PAGE })),
    search('text', "text 'web-0'", () => ({ text: 'web-0', limit: PAGE })),
    {
      key: 'counts',
      label: 'GET /v1/cases/counts',
      group: 'counts',
      request: () => ({
        method: 'GET',
        path: '/v1/cases/counts',
        check: (status, body) => (status !== 200 ? `status ${status}` : checkCounts(seeded, body)),
      }),
    },
    get('get_id', 'GET /v1/cases/{id} (random ids)', (model) => model.id),
    get('get_number', 'GET /v1/cases/{number} (random numbers)', (model) => String(model.number)),
  ];
}
