// Request and response schemas of /v1/cases: the case, its detail, the search body, updates,
// merges, comments and history (the search: case-search-schemas.ts). The workflow and the score formula are published here.
import { Type } from 'typebox';
import { PageQuery, Timestamp } from '../http/schemas.js';
import { ObservationSchema } from '../observations/observation-schemas.js';
import { DeviceSchema } from '../devices/device-schemas.js';
import { workflowDescription } from './case-workflow.js';
import { CaseSummaryRef } from './case-context.js';
import { CaseSlaSchema, TaskSchema } from './work/template-schemas.js';
import { TenantSummarySchema } from '../identity/identity-schemas.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const StatusSchema = Type.Union(
  [Type.Literal('new'), Type.Literal('in_progress'), Type.Literal('on_hold'), Type.Literal('closed')],
  { description: `Case status. Transitions: ${workflowDescription}.` },
);
export const ResolutionSchema = Type.Union(
  [
    Type.Literal('true_positive'),
    Type.Literal('benign_true_positive'),
    Type.Literal('false_positive'),
    Type.Literal('duplicate'),
    Type.Literal('inconclusive'),
  ],
  {
    description: 'Why a case was closed: true_positive, benign_true_positive, false_positive, duplicate, inconclusive',
  },
);
export const SeveritySchema = Type.Union(
  [Type.Literal('low'), Type.Literal('medium'), Type.Literal('high'), Type.Literal('critical')],
  {
    description:
      'Case severity: low, medium, high, critical. Follows the highest observation level until a person sets it.',
  },
);

export const SCORE_FORMULA =
  'score = clamp(0, 100, round((level + volume + breadth) × criticality)); level: the highest observation level (informational 5, low 15, medium 35, high 55, critical 75); volume: min(10, 2.5 × log2(observations)); breadth: min(15, 5 × (distinct ATT&CK tactics − 1)); criticality: the most critical device (low 0.8, medium 1.0, high 1.2, critical 1.4).';

const Person = Type.Object(
  { id: Type.String(), email: Type.String(), name: Type.String() },
  { description: 'A user of the tenant' },
);

export const caseExample = {
  id: 'case_2vPq8LmN4xR7tY1wK9sD',
  number: 42,
  tenant: { code_name: 'acme', name: 'Acme Corp' },
  title: 'Reverse shell to a remote host and 2 more detections on web-01',
  description:
    '5 observations on web-01 between 2026-11-20 10:04:12 UTC and 2026-11-20 10:31:40 UTC.\n\nDetections:\n- Reverse shell to a remote host (high, 1×)',
  score: 71,
  severity: 'high',
  status: 'in_progress',
  resolution: null,
  closing_comment: null,
  assignee: { id: 'usr_Yx2c9WmQ1pLs7dKe4TzA', email: 'ana@acme.example', name: 'Ana' },
  tags: ['web', 'pci'],
  techniques: [{ id: 'T1059.004', name: 'Unix Shell', tactics: ['Execution'] }],
  tactics: ['execution', 'command-and-control'],
  devices: [{ id: 'dev_8Jd2kQp0LsX1vN5aRt7y', host_name: 'web-01', criticality: 'high' }],
  observation_count: 5,
  created_at: '2026-11-20T10:04:13.000Z',
  updated_at: '2026-11-20T10:40:02.000Z',
  first_observation_at: '2026-11-20T10:04:12.000Z',
  last_observation_at: '2026-11-20T10:31:40.000Z',
  closed_at: null,
  merged_into: null,
  version: 7,
  sla: null,
  summary: null,
  summary_unavailable: null,
};

export const CaseSchema = Type.Object(
  {
    id: Type.String({ description: 'Case id (`case_…`)' }),
    number: Type.Integer({ description: 'Per-tenant case number, for people ("case 42")' }),
    tenant: Type.Object(TenantSummarySchema.properties, {
      description: "The tenant the case belongs to (a partner's queue holds the cases of several)",
    }),
    title: Type.String({ description: 'Generated from the observations: what and where' }),
    description: Type.String({ description: 'Generated from the observations: what, where, when (Markdown)' }),
    score: Type.Integer({ minimum: 0, maximum: 100, description: `0–100. ${SCORE_FORMULA}` }),
    severity: SeveritySchema,
    status: StatusSchema,
    resolution: Type.Union([ResolutionSchema, Type.Null()]),
    closing_comment: Nullable(Type.String()),
    assignee: Type.Union([Person, Type.Null()]),
    tags: Type.Array(Type.String()),
    techniques: Type.Array(
      Type.Object({
        id: Type.String(),
        name: Type.Union([Type.String(), Type.Null()]),
        tactics: Type.Array(Type.String()),
      }),
      { description: 'MITRE ATT&CK techniques of the observations (names and tactics from the bundled catalogue)' },
    ),
    tactics: Type.Array(Type.String(), { description: 'ATT&CK tactic short names' }),
    devices: Type.Array(Type.Object({ id: Type.String(), host_name: Type.String(), criticality: Type.String() })),
    observation_count: Type.Integer(),
    created_at: Timestamp('Created'),
    updated_at: Timestamp('Last changed (by anyone, grouping included)'),
    first_observation_at: Timestamp('First observation'),
    last_observation_at: Timestamp('Last observation'),
    closed_at: Type.Union([Timestamp('Closed'), Type.Null()]),
    merged_into: Nullable(Type.String({ description: 'Set when this case was merged into another' })),
    version: Type.Integer({ description: 'Changes with every update; send it back with PATCH (optimistic locking)' }),
    sla: CaseSlaSchema,
    summary: Type.Union([CaseSummaryRef, Type.Null()], {
      description: 'The AI case summary once one has been generated (reading never generates one); null until then',
    }),
    summary_unavailable: Type.Union([Type.Object({ code: Type.String(), detail: Type.String() }), Type.Null()], {
      description: 'Why no summary can be shown: set when the tenant opted out of AI summaries',
    }),
  },
  { examples: [caseExample] },
);

export const CommentSchema = Type.Object(
  {
    id: Type.String({ description: 'Comment id (`cmt_…`)' }),
    body: Type.String({ description: 'Markdown' }),
    author: Type.Object({
      type: Type.String({ description: '`user` or `token`' }),
      id: Type.String(),
      label: Type.String(),
    }),
    created_at: Timestamp('Written'),
    updated_at: Timestamp('Last edited'),
  },
  {
    examples: [
      {
        id: 'cmt_Q2w8Er5Ty1Ui4Op7As0D',
        body: 'Isolated web-01, rotating keys.',
        author: { type: 'user', id: 'usr_Yx2c9WmQ1pLs7dKe4TzA', label: 'ana@acme.example' },
        created_at: '2026-11-20T10:40:02.000Z',
        updated_at: '2026-11-20T10:40:02.000Z',
      },
    ],
  },
);

const MergeRef = Type.Object({ id: Type.String(), number: Type.Integer() });

export const CaseDetailSchema = Type.Object(
  {
    ...CaseSchema.properties,
    devices: Type.Array(Type.Object({ ...DeviceSchema.properties }), {
      description: 'The devices, with addresses (country and city)',
    }),
    observations: Type.Array(ObservationSchema, {
      description: 'The observations, oldest first (up to 500; observation_count has the total)',
    }),
    comments: Type.Array(CommentSchema, {
      description: 'The first 100 comments, oldest first (all of them: GET …/comments)',
    }),
    tasks: Type.Array(TaskSchema, { description: 'The tasks, in order (from templates or added by hand)' }),
    merge: Type.Object(
      {
        into: Type.Union([MergeRef, Type.Null()], { description: 'The case this one was merged into' }),
        from: Type.Array(MergeRef, { description: 'The cases merged into this one (up to 100), by number' }),
      },
      { description: 'Both sides of merges, by case number' },
    ),
  },
  { examples: [{ ...caseExample, observations: [], comments: [], merge: { into: null, from: [] } }] },
);

/** `track_total` when the request leaves it out, as Elasticsearch's track_total_hits. */
const changeFields = {
  status: Type.Optional(StatusSchema),
  resolution: Type.Optional(ResolutionSchema),
  closing_comment: Type.Optional(
    Type.String({ maxLength: 10_000, description: 'Written as a comment and kept on the case when closing' }),
  ),
  assignee: Type.Optional(
    Type.Union([Type.Null(), Type.String({ minLength: 1, maxLength: 254 })], {
      description: 'User id or email of a user of the tenant; null: unassign',
    }),
  ),
  tags: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 64, pattern: '^[^\\s,]+$' }), {
      maxItems: 50,
      description: 'The whole tag list (replaces it)',
    }),
  ),
  severity: Type.Optional(SeveritySchema),
  force: Type.Optional(
    Type.Boolean({
      description:
        'Close although required tasks are open (otherwise 409 `required_tasks_open` names them); needs force_reason',
    }),
  ),
  force_reason: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 1_000,
      description: 'Why the case closes with required tasks open (kept in its history)',
    }),
  ),
};

export const PatchCaseBody = Type.Object(
  {
    version: Type.Integer({
      minimum: 1,
      description: 'The version you read; a stale one answers 409 version_conflict',
    }),
    ...changeFields,
  },
  {
    additionalProperties: false,
    minProperties: 2,
    examples: [
      {
        version: 7,
        status: 'closed',
        resolution: 'true_positive',
        closing_comment: 'Web shell removed, keys rotated.',
      },
    ],
  },
);

export const BulkPatchBody = Type.Object(
  {
    cases: Type.Array(
      Type.Object(
        {
          id: Type.String({ maxLength: 64, description: 'Case id or number' }),
          version: Type.Integer({ minimum: 1 }),
          ...changeFields,
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 100 },
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        cases: [
          { id: '41', version: 3, assignee: 'ana@acme.example' },
          { id: '42', version: 7, status: 'in_progress' },
        ],
      },
    ],
  },
);

export const BulkResultSchema = Type.Object({
  results: Type.Array(
    Type.Object({
      id: Type.String({ description: 'As given' }),
      status: Type.Integer({ description: 'What a single PATCH would have answered: 200, 400, 404, 409' }),
      case: Type.Optional(CaseSchema),
      error: Type.Optional(Type.Object({ code: Type.String(), detail: Type.String() }, { additionalProperties: true })),
    }),
  ),
});

export const MergeBody = Type.Object(
  {
    target: Type.String({ maxLength: 64, description: 'The case that remains (id or number)' }),
    sources: Type.Array(Type.String({ maxLength: 64 }), {
      minItems: 1,
      maxItems: 50,
      description: 'Cases merged into it: closed as duplicate, marked merged_into',
    }),
  },
  { additionalProperties: false, examples: [{ target: '42', sources: ['43', '47'] }] },
);

export const CommentBody = Type.Object(
  { body: Type.String({ minLength: 1, maxLength: 10_000, description: 'Markdown' }) },
  { additionalProperties: false, examples: [{ body: 'Isolated web-01.' }] },
);

export const HistorySchema = Type.Object(
  {
    at: Timestamp('When'),
    actor: Type.Object({
      type: Type.String({ description: '`user`, `token` or `system`' }),
      id: Type.Union([Type.String(), Type.Null()]),
      label: Type.String(),
    }),
    action: Type.String({
      description:
        'created, observations_added, updated, commented, comment_edited, comment_deleted, merged, merged_into, rescored, response_action_requested, response_action_completed, observable_added, observable_tagged, observable_removed',
    }),
    changes: Type.Record(Type.String(), Type.Unknown(), {
      description: "Per field {from, to}, or the action's details",
    }),
  },
  {
    examples: [
      {
        at: '2026-11-20T10:40:02.000Z',
        actor: { type: 'user', id: 'usr_Yx2c9WmQ1pLs7dKe4TzA', label: 'ana@acme.example' },
        action: 'updated',
        changes: { status: { from: 'new', to: 'in_progress' } },
      },
    ],
  },
);

export const CaseParams = Type.Object({
  case_id: Type.String({ maxLength: 64, description: 'Case id (`case_…`) or case number' }),
});
export const CommentParams = Type.Object({
  case_id: Type.String({ maxLength: 64 }),
  comment_id: Type.String({ maxLength: 64 }),
});
export const ListPageQuery = Type.Object({ ...PageQuery }, { additionalProperties: false });
export const HistoryQuery = Type.Object(
  {
    ...PageQuery,
    order: Type.Optional(
      Type.Union([Type.Literal('asc'), Type.Literal('desc')], {
        default: 'asc',
        description: '`asc`: oldest first (default); `desc`: newest first',
      }),
    ),
  },
  { additionalProperties: false },
);
