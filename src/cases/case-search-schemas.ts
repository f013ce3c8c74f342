// The case search of /v1/cases: its body (filters, sort, total tracking), the list it answers
// and the per-status counts. The case itself is described in case-schemas.ts.
import { Type } from 'typebox';
import { NextCursor, PageQuery } from '../http/schemas.js';
import { TechniqueId } from '../observations/observation-schemas.js';
import { CaseSchema, caseExample, SeveritySchema, StatusSchema } from './case-schemas.js';
export const DEFAULT_TRACK_TOTAL = 10_000;
export const MAX_TRACK_TOTAL = 100_000;

const TimeFilter = (description: string) => Type.Optional(Type.String({ format: 'date-time', description }));

export const SearchCasesBody = Type.Object(
  {
    status: Type.Optional(Type.Array(StatusSchema, { maxItems: 4, description: 'Any of these statuses' })),
    severity: Type.Optional(Type.Array(SeveritySchema, { maxItems: 4, description: 'Any of these severities' })),
    score_min: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
    score_max: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
    // Null first: the validator coerces types, and tried second, null would become "" for the string.
    assignee: Type.Optional(
      Type.Union([Type.Null(), Type.String({ minLength: 1, maxLength: 254 })], {
        description: 'User id or email; null: unassigned cases',
      }),
    ),
    tags: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
        maxItems: 20,
        description: 'Cases carrying every one of these tags',
      }),
    ),
    device_id: Type.Optional(Type.String({ maxLength: 64, description: 'Cases on this device' })),
    technique: Type.Optional(TechniqueId),
    tenants: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 63 }), {
        maxItems: 100,
        description:
          "Cases of any of these tenants, by code name: narrows a partner's queue to some of its tenants (others match nothing)",
      }),
    ),
    text: Type.Optional(
      Type.String({
        maxLength: 200,
        description: 'Free text: part of the number (#42), title, description, host names or tags',
      }),
    ),
    sla_breached: Type.Optional(
      Type.Boolean({
        description:
          'true: cases whose SLA acknowledge or resolve clock ran out (marked within a minute of it); false: neither',
      }),
    ),
    created_after: TimeFilter('Created at or after'),
    created_before: TimeFilter('Created before'),
    updated_after: TimeFilter('Changed after (incremental sync: pass the newest updated_at you hold)'),
    updated_before: TimeFilter('Changed before'),
    sort: Type.Optional(
      Type.Union([Type.Literal('created'), Type.Literal('updated'), Type.Literal('score')], {
        default: 'created',
        description: 'Sort key (ties broken by creation order)',
      }),
    ),
    order: Type.Optional(Type.Union([Type.Literal('desc'), Type.Literal('asc')], { default: 'desc' })),
    track_total: Type.Optional(
      // One JSON type list, not a union: with a union the validator's type coercion would read 1 as true, or true as 1.
      Type.Unsafe<boolean | number>({
        type: ['boolean', 'integer'],
        minimum: 1,
        maximum: MAX_TRACK_TOTAL,
        default: DEFAULT_TRACK_TOTAL,
        description:
          `How far to count the matches for \`total\` (Elasticsearch's track_total_hits). An integer n (1–${MAX_TRACK_TOTAL.toLocaleString('en-US')}): count up to n — ` +
          `\`total\` is exact (\`total_relation: "eq"\`) when fewer than n match, else n with \`total_relation: "gte"\`. Default ${DEFAULT_TRACK_TOTAL.toLocaleString('en-US')}. ` +
          '`true`: count every match (exact; slower on large tenants). `false`: do not count (`total` and `total_relation` are null; the fastest page).',
      }),
    ),
    ...PageQuery,
  },
  {
    additionalProperties: false,
    examples: [
      { status: ['new', 'in_progress'], score_min: 50, sort: 'score', limit: 25 },
      { updated_after: '2026-11-20T10:00:00Z', sort: 'updated', order: 'asc', track_total: false },
      { tenants: ['acme', 'globex'], status: ['new'], sort: 'score', limit: 100 },
    ],
  },
);

export const CaseListSchema = Type.Object(
  {
    cases: Type.Array(CaseSchema),
    next_cursor: NextCursor,
    total: Type.Union([Type.Integer(), Type.Null()], {
      description:
        'Cases matching the filter, all pages, counted as far as `track_total` asks: exact when `total_relation` is `eq`, a lower bound when `gte`; null when `track_total` is false',
    }),
    total_relation: Type.Union([Type.Literal('eq'), Type.Literal('gte'), Type.Null()], {
      description:
        '`eq`: `total` is the number of matches; `gte`: at least `total` match (the `track_total` limit was reached); null when not counted',
    }),
  },
  {
    description: 'A page of cases',
    examples: [{ cases: [caseExample], next_cursor: null, total: 1, total_relation: 'eq' }],
  },
);

const Count = Type.Integer({ minimum: 0 });

export const CaseCountsSchema = Type.Object(
  {
    by_status: Type.Object(
      { new: Count, in_progress: Count, on_hold: Count, closed: Count },
      { description: "The tenant's cases per status (merged cases are closed)" },
    ),
    open_by_severity: Type.Object(
      { low: Count, medium: Count, high: Count, critical: Count },
      { description: 'The open cases (new, in progress, on hold) per severity' },
    ),
  },
  {
    description: 'Exact counts, read in one snapshot',
    examples: [
      {
        by_status: { new: 12, in_progress: 7, on_hold: 2, closed: 1480 },
        open_by_severity: { low: 5, medium: 9, high: 6, critical: 1 },
      },
    ],
  },
);
