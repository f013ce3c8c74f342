// The case query behind `POST /v1/cases`. Every column a filter or sort looks at sits in the
// tenant-first sort indexes (migration 0006), so the page is chosen from index entries and only
// its rows are read whole. A set filter (device, tag, technique, text) small enough drives the
// query: its cases are read and sorted. Otherwise the query walks the sort index in order,
// checking each case, and stops at the page's end. `total` counts up to a limit, as
// Elasticsearch's track_total_hits does: past it, the count of a common filter would cost more
// than the page.
import { expressionBuilder, sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import type { CasesTable, Tables } from '../storage/schema.js';
import type { CaseRow, Db } from './case-store.js';
import {
  countUpTo,
  deviceSet,
  normaliseText,
  tagSet,
  techniqueSet,
  textLike,
  textSet,
  type CaseSearchStorage,
  type CaseSet,
} from './case-search-sets.js';

export interface CaseFilter {
  statuses?: string[];
  severities?: string[];
  scoreMin?: number;
  scoreMax?: number;
  /** A user id; null: unassigned cases. */
  assignee?: string | null;
  /** Every tag given must be on the case. */
  tags?: string[];
  deviceId?: string;
  /** A technique id; a parent (`T1059`) also finds its sub-techniques. */
  technique?: string;
  /** Case-insensitive substring of the number (`#42`), title, description, hosts or tags. */
  text?: string;
  createdAfter?: number;
  createdBefore?: number;
  updatedAfter?: number;
  updatedBefore?: number;
  /** True: cases whose acknowledge or resolve clock ran out (as the SLA watcher found); false: neither. */
  slaBreached?: boolean;
}

export type CaseSort = 'created' | 'updated' | 'score';
const sortColumn = { created: 'c.created_at', updated: 'c.updated_at', score: 'c.score' } as const;
/** The index ordered by each sort key (migration 0006). */
const sortIndex = {
  created: 'cases_tenant_created',
  updated: 'cases_tenant_updated',
  score: 'cases_tenant_score',
} as const;

export interface CasePage {
  sort: CaseSort;
  order: 'asc' | 'desc';
  limit: number;
  /** The previous page's last (sort value, seq). */
  after?: { value: number; seq: number };
}

/** How far to count the matches: exactly, up to a limit, or not at all. */
export type TotalTracking = { exact: true } | { upTo: number } | null;

/** The API's `track_total`: true counts every match, false none, n up to n. */
export function totalTracking(trackTotal: boolean | number): TotalTracking {
  return trackTotal === true ? { exact: true } : trackTotal === false ? null : { upTo: trackTotal };
}

/** `eq`: value is the number of matches; `gte`: there are at least value (the limit). */
export interface CaseTotal {
  value: number;
  relation: 'eq' | 'gte';
}

/**
 * A set with at most this many cases drives the query. Reading a case by key costs about ten
 * times checking one while walking an index, and a walk finds a page of a set of n cases among
 * N after about 50·N/n steps; at 100k cases they cost the same near n = 700.
 */
export const DRIVE_LIMIT = 1000;

const scope = expressionBuilder<Tables & { c: CasesTable }, 'c'>();

/** The conditions on the case row itself: the index columns, and text too short for the trigram index. */
function rowConditions(filter: CaseFilter, shortText: string | undefined): Expression<SqlBool>[] {
  const all: Expression<SqlBool>[] = [];
  const {
    statuses,
    severities,
    scoreMin,
    scoreMax,
    assignee,
    createdAfter,
    createdBefore,
    updatedAfter,
    updatedBefore,
  } = filter;
  if (statuses?.length) all.push(scope('c.status', 'in', statuses));
  if (severities?.length) all.push(scope('c.severity', 'in', severities));
  if (scoreMin !== undefined) all.push(scope('c.score', '>=', scoreMin));
  if (scoreMax !== undefined) all.push(scope('c.score', '<=', scoreMax));
  if (assignee !== undefined)
    all.push(assignee === null ? scope('c.assignee_id', 'is', null) : scope('c.assignee_id', '=', assignee));
  if (createdAfter !== undefined) all.push(scope('c.created_at', '>=', createdAfter));
  if (createdBefore !== undefined) all.push(scope('c.created_at', '<', createdBefore));
  if (updatedAfter !== undefined) all.push(scope('c.updated_at', '>', updatedAfter));
  if (updatedBefore !== undefined) all.push(scope('c.updated_at', '<', updatedBefore));
  if (shortText !== undefined) all.push(textLike(shortText));
  if (filter.slaBreached !== undefined) {
    const breached = scope.or([
      scope('c.acknowledge_breached_at', 'is not', null),
      scope('c.resolve_breached_at', 'is not', null),
    ]);
    all.push(filter.slaBreached ? breached : scope.not(breached));
  }
  return all;
}

function setFilters(db: Db, tenantId: number, filter: CaseFilter, text: CaseSet | undefined): CaseSet[] {
  const sets: CaseSet[] = [];
  if (filter.deviceId !== undefined) sets.push(deviceSet(db, tenantId, filter.deviceId));
  for (const tag of new Set(filter.tags ?? [])) sets.push(tagSet(db, tenantId, tag));
  if (filter.technique !== undefined) sets.push(techniqueSet(db, tenantId, filter.technique));
  if (text) sets.push(text);
  return sets;
}

/** A search's cases: those of the driving set, or all of the tenant's, walked through an index. */
function source(storage: CaseSearchStorage, driver: CaseSet | undefined, walk?: string): RawBuilder<unknown> {
  // SQLite never reorders a CROSS JOIN: the set stays the outer loop.
  if (driver) return sql`(${driver.members}) AS d CROSS JOIN cases AS c`;
  // When many cases match, walking the sort index finds the page sooner; whether the planner
  // must be told so is the database's (CaseSearchStorage.walkingIndex).
  return walk ? storage.walkingIndex(walk) : sql`cases AS c`;
}

/** Whole rows of the page's cases, in the page's order. */
async function readRows(db: Db, tenantId: number, seqs: readonly number[]): Promise<CaseRow[]> {
  if (seqs.length === 0) return [];
  // By primary key: `+` keeps SQLite from scanning the tenant's entries of an index led by tenant_id.
  const rows = await db
    .selectFrom('cases')
    .selectAll()
    .where('seq', 'in', [...seqs])
    .where(sql`+tenant_id`, '=', tenantId)
    .execute();
  const bySeq = new Map(rows.map((row) => [row.seq, row]));
  return seqs.map((seq) => bySeq.get(seq)).filter((row) => row !== undefined);
}

export async function searchCases(
  db: Db,
  storage: CaseSearchStorage,
  tenantId: number,
  filter: CaseFilter,
  page: CasePage,
  tracking: TotalTracking,
): Promise<{ rows: CaseRow[]; total: CaseTotal | null }> {
  const text = filter.text === undefined || normaliseText(filter.text) === '' ? undefined : normaliseText(filter.text);
  const indexedText = text === undefined ? undefined : textSet(db, storage, tenantId, text);
  const sets = setFilters(db, tenantId, filter, indexedText);
  const conditions = rowConditions(filter, indexedText ? undefined : text);
  const cap = tracking && 'upTo' in tracking ? tracking.upTo : null;
  // Matches are counted at least past DRIVE_LIMIT (the plan needs to know), and as far as the total needs.
  const countLimit = tracking && cap === null ? null : Math.max(cap ?? 0, DRIVE_LIMIT) + 1;

  // A set alone: its size is the total, so it is counted once.
  const lone = sets.length === 1 && conditions.length === 0 ? sets[0] : undefined;
  const sized = await Promise.all(
    sets.map(async (set) => ({ set, size: await set.size(set === lone ? countLimit : DRIVE_LIMIT + 1) })),
  );
  sized.sort((a, b) => a.size - b.size);
  const driver = sized[0] && sized[0].size <= DRIVE_LIMIT ? sized[0].set : undefined;
  const where = scope.and([
    scope('c.tenant_id', '=', tenantId),
    ...(driver ? [driver.joinsOn] : []),
    ...conditions,
    ...sets.filter((set) => set !== driver).map((set) => set.contains),
  ]);
  const matching = (from: RawBuilder<unknown>) => sql`SELECT 1 FROM ${from} WHERE ${where}`;

  let matches: number | undefined;
  if (lone) matches = sized[0]?.size;
  else if (!driver || tracking) matches = await countUpTo(db, matching(source(storage, driver)), countLimit);

  const column = sortColumn[page.sort];
  const order = sql.raw(page.order);
  const after = page.after;
  const beyond = after
    ? scope(scope.refTuple(column, 'c.seq'), page.order === 'desc' ? '<' : '>', scope.tuple(after.value, after.seq))
    : sql<SqlBool>`1 = 1`;
  const walk = !driver && matches !== undefined && matches > DRIVE_LIMIT ? sortIndex[page.sort] : undefined;
  const keys = await sql<{
    seq: number;
  }>`SELECT c.seq FROM ${source(storage, driver, walk)} WHERE ${where} AND ${beyond}
    ORDER BY ${sql.ref(column)} ${order}, c.seq ${order} LIMIT ${page.limit}`.execute(db);
  const rows = await readRows(
    db,
    tenantId,
    keys.rows.map((key) => key.seq),
  );

  let total: CaseTotal | null = null;
  if (tracking && matches !== undefined)
    total = cap !== null && matches > cap ? { value: cap, relation: 'gte' } : { value: matches, relation: 'eq' };
  return { rows, total };
}

export function sortValue(row: CaseRow, sort: CaseSort): number {
  return sort === 'created' ? row.created_at : sort === 'updated' ? row.updated_at : row.score;
}
