// /v1/cases: search (POST, so that filters travel in a body), one case with all its parts, updates (one or up
// to 100), merges, comments and history; the investigation and observable routes are registered from here.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { CaseRequest, CasesDeps } from './case-context.js';
import { principalOf, tenantOf, tenantsOf } from '../identity/auth.js';
import { decodeCursor, encodeCursor } from '../http/pagination.js';
import { NextCursor, problemResponse } from '../http/schemas.js';
import { parseIsoTime } from '../core/time.js';
import { actorOf } from '../identity/principal.js';
import { AppError } from '../core/errors.js';
import {
  BulkPatchBody,
  BulkResultSchema,
  CaseDetailSchema,
  CaseParams,
  CaseSchema,
  CommentBody,
  CommentParams,
  CommentSchema,
  HistoryQuery,
  HistorySchema,
  ListPageQuery,
  MergeBody,
  PatchCaseBody,
  SCORE_FORMULA,
} from './case-schemas.js';
import { CaseCountsSchema, CaseListSchema, DEFAULT_TRACK_TOTAL, SearchCasesBody } from './case-search-schemas.js';
import { getCaseDetail } from './case-service.js';
import { findingSource } from '../observations/observation-service.js';
import { answerOcsf, caseFinding, OcsfFormatQuery, wantsOcsf } from '../webhooks/ocsf-findings.js';
import { bulkPatchCases, patchCase } from './case-changes.js';
import {
  addComment,
  caseCounts,
  deleteComment,
  editComment,
  mergeCases,
  pageComments,
  pageHistory,
} from './case-actions.js';
import { findCases, tenantOfCase } from './case-queue.js';
import { totalTracking } from './case-search.js';
import { workflowDescription } from './case-workflow.js';
import { investigationRoutes } from './case-investigation-routes.js';
import { caseTaskRoutes } from './work/task-routes.js';
import { caseTemplateRoutes } from './work/template-routes.js';
import { observableRoutes } from './case-observable-routes.js';

const conflict = problemResponse('The case changed since you read it (stale version)', 'version_conflict');
const transition = problemResponse(
  'The status change is not allowed from the current status; `allowed` lists the ones that are',
  'invalid_status_transition',
);

export async function caseRoutes(app: FastifyInstance, deps: CasesDeps): Promise<void> {
  const caseRequest = (request: FastifyRequest): CaseRequest => ({
    ...deps,
    tenantId: tenantOf(request).id,
    actor: actorOf(principalOf(request)),
  });
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  const read = { access: { scope: 'tenant', permission: 'cases:read' } } as const;
  const write = { access: { scope: 'tenant', permission: 'cases:write' } } as const;
  const readAcross = { access: { scope: 'tenant', permission: 'cases:read', acrossTenants: true } } as const;

  routes.post(
    '/cases',
    {
      config: readAcross,
      schema: {
        tags: ['Cases'],
        summary: 'Search cases',
        description: `The tenant's cases matching a filter, with the AI summaries already generated on them (reading never generates one). Filters combine with AND; lists within one filter with OR (tags: every tag). Sort by created (default), updated or score; cursor pagination. \`total\` counts the matches up to \`track_total\` (default ${DEFAULT_TRACK_TOTAL.toLocaleString('en-US')}): exact when \`total_relation\` is \`eq\`, a lower bound when \`gte\` (as Elasticsearch's track_total_hits); \`track_total: true\` counts them all, \`false\` not at all (then both are null). For incremental sync pass \`updated_after\` with \`sort: updated, order: asc\`. A partner's token that names no tenant in \`Sightline-Tenant\` searches every tenant the partner serves at once (narrow it with \`tenants\`): one order and one cursor across them, each case naming its \`tenant\`. Score: ${SCORE_FORMULA}`,
        body: SearchCasesBody,
        response: { 200: CaseListSchema },
      },
    },
    async (request) => {
      const body = request.body;
      const sort = body.sort ?? 'created';
      const order = body.order ?? 'desc';
      let after: { value: number; seq: number } | undefined;
      if (body.cursor) {
        const cursor = decodeCursor<{ v: number; s: number; k: string }>(body.cursor, {
          v: 'number',
          s: 'number',
          k: 'string',
        });
        if (cursor.k !== `${sort}:${order}`) {
          throw new AppError(
            'invalid_cursor',
            `this cursor belongs to a search sorted by ${cursor.k.replace(':', ' ')}; keep sort and order while paging`,
            { extensions: { field: 'cursor' } },
          );
        }
        after = { value: cursor.v, seq: cursor.s };
      }
      const named = body.tenants;
      const tenantIds = tenantsOf(request)
        .filter((tenant) => named === undefined || named.includes(tenant.code_name))
        .map((tenant) => tenant.id);
      const result = await findCases(
        deps,
        tenantIds,
        {
          ...(body.status ? { statuses: body.status } : {}),
          ...(body.severity ? { severities: body.severity } : {}),
          ...(body.score_min !== undefined ? { scoreMin: body.score_min } : {}),
          ...(body.score_max !== undefined ? { scoreMax: body.score_max } : {}),
          ...(body.assignee !== undefined ? { assigneeRef: body.assignee } : {}),
          ...(body.tags ? { tags: body.tags.map((tag) => tag.toLowerCase()) } : {}),
          ...(body.device_id ? { deviceId: body.device_id } : {}),
          ...(body.technique ? { technique: body.technique } : {}),
          ...(body.text ? { text: body.text } : {}),
          ...(body.sla_breached !== undefined ? { slaBreached: body.sla_breached } : {}),
          ...(body.created_after ? { createdAfter: parseIsoTime('created_after', body.created_after) } : {}),
          ...(body.created_before ? { createdBefore: parseIsoTime('created_before', body.created_before) } : {}),
          ...(body.updated_after ? { updatedAfter: parseIsoTime('updated_after', body.updated_after) } : {}),
          ...(body.updated_before ? { updatedBefore: parseIsoTime('updated_before', body.updated_before) } : {}),
        },
        { sort, order, limit: body.limit ?? 50, ...(after ? { after } : {}) },
        totalTracking(body.track_total ?? DEFAULT_TRACK_TOTAL),
      );
      return {
        cases: result.cases,
        next_cursor: result.next
          ? encodeCursor({ v: result.next.value, s: result.next.seq, k: `${sort}:${order}` })
          : null,
        total: result.total?.value ?? null,
        total_relation: result.total?.relation ?? null,
      };
    },
  );

  // A static path: Fastify's router prefers it to /cases/:case_id whatever the order, and no case
  // id or number reads "counts".
  routes.get(
    '/cases/counts',
    {
      config: read,
      schema: {
        tags: ['Cases'],
        summary: 'Count cases by status',
        description:
          "The tenant's cases per status, and its open cases (new, in progress, on hold) per severity: exact, in one snapshot, and cheap enough to poll for live counts.",
        response: { 200: CaseCountsSchema },
      },
    },
    async (request) => caseCounts(deps.db, tenantOf(request).id),
  );

  routes.get(
    '/cases/:case_id',
    {
      config: readAcross,
      schema: {
        tags: ['Cases'],
        summary: 'Get a case',
        description:
          "One case with its observations, devices (with locations), techniques and comments, and its AI summary only if one was generated already. `case_id` is the id or the case number. A partner's token that names no tenant in `Sightline-Tenant` opens a case of any tenant it serves by its id (a number needs the tenant named). With `format=ocsf`, or `Accept: application/vnd.ocsf+json`, the answer is the case as an OCSF 1.3 Incident Finding (class 2005) whose `finding_info_list` holds its observations (docs/webhooks.md).",
        params: CaseParams,
        querystring: OcsfFormatQuery,
        response: { 200: CaseDetailSchema },
      },
    },
    async (request, reply) => {
      const ref = request.params.case_id;
      const tenant = request.tenant ?? (await tenantOfCase(deps, tenantsOf(request), ref));
      const detail = await getCaseDetail({ ...deps, tenantId: tenant.id }, ref);
      if (!wantsOcsf(request.query.format, request.headers.accept)) return detail;
      const observations = detail.observations.map(findingSource);
      return answerOcsf(reply, caseFinding({ ...detail, observations }, tenant.code_name));
    },
  );

  investigationRoutes(app, deps);
  caseTaskRoutes(app, deps);
  caseTemplateRoutes(app, deps);
  observableRoutes(app, deps);

  routes.patch(
    '/cases/:case_id',
    {
      config: write,
      schema: {
        tags: ['Cases'],
        summary: 'Update a case',
        description: `Changes status, resolution, closing comment, assignee, tags or severity. Send the \`version\` you read: a stale one answers 409 \`version_conflict\`. Status transitions: ${workflowDescription}; anything else answers 409 \`invalid_status_transition\` with the allowed ones. Closing needs a \`resolution\`; a \`closing_comment\` is also added as a comment. Reopening (closed → in_progress) clears the resolution; the history keeps it.`,
        params: CaseParams,
        body: PatchCaseBody,
        response: {
          200: CaseSchema,
          400: problemResponse(
            'resolution_required (closing without a resolution), unknown_assignee, or invalid_request (a resolution without closing)',
            'resolution_required',
          ),
          409: {
            description: 'Stale version (version_conflict) or a forbidden status change (invalid_status_transition)',
            content: {
              'application/problem+json': {
                schema: conflict.content['application/problem+json'].schema,
                examples: {
                  version_conflict: { value: conflict.content['application/problem+json'].example },
                  invalid_status_transition: {
                    value: {
                      ...transition.content['application/problem+json'].example,
                      allowed: ['in_progress', 'closed'],
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
    async (request) => {
      const { version, ...changes } = request.body;
      return patchCase(caseRequest(request), { idOrNumber: request.params.case_id, version, changes });
    },
  );

  routes.patch(
    '/cases',
    {
      config: write,
      schema: {
        tags: ['Cases'],
        summary: 'Update up to 100 cases',
        description:
          'The same changes as PATCH /v1/cases/{case_id}, for up to 100 cases, each with its own version. Each case is applied on its own; `results` holds, per case in order, the status a single PATCH would have answered and the case or the error.',
        body: BulkPatchBody,
        response: { 200: BulkResultSchema },
      },
    },
    async (request) => bulkPatchCases(caseRequest(request), request.body.cases),
  );

  routes.post(
    '/cases/merge',
    {
      config: write,
      schema: {
        tags: ['Cases'],
        summary: 'Merge cases',
        description:
          'Moves the observations, devices, techniques and tags of `sources` into `target`, which is rescored and retitled. The sources are closed as `duplicate` with `merged_into` set; every case involved records the merge in its history.',
        body: MergeBody,
        response: {
          200: CaseSchema,
          400: problemResponse(
            'A case cannot be merged (closed or merged target, itself, already merged)',
            'invalid_merge',
          ),
          404: problemResponse('A case named does not exist', 'not_found'),
          409: problemResponse('A case changed during the merge; try again', 'version_conflict'),
        },
      },
    },
    async (request) =>
      mergeCases(caseRequest(request), { targetRef: request.body.target, sourceRefs: request.body.sources }),
  );

  routes.get(
    '/cases/:case_id/comments',
    {
      config: read,
      schema: {
        tags: ['Cases'],
        summary: 'List comments',
        description: "A case's comments, oldest first.",
        params: CaseParams,
        querystring: ListPageQuery,
        response: { 200: Type.Object({ comments: Type.Array(CommentSchema), next_cursor: NextCursor }) },
      },
    },
    async (request) => {
      const after = request.query.cursor
        ? decodeCursor<{ s: number }>(request.query.cursor, { s: 'number' }).s
        : undefined;
      const page = await pageComments(deps.db, tenantOf(request).id, request.params.case_id, {
        limit: request.query.limit ?? 50,
        ...(after !== undefined ? { after } : {}),
      });
      return { comments: page.comments, next_cursor: page.next === null ? null : encodeCursor({ s: page.next }) };
    },
  );

  routes.post(
    '/cases/:case_id/comments',
    {
      config: write,
      schema: {
        tags: ['Cases'],
        summary: 'Add a comment',
        description: 'Adds a comment (Markdown) to a case; recorded in its history.',
        params: CaseParams,
        body: CommentBody,
        response: { 201: CommentSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await addComment(caseRequest(request), request.params.case_id, request.body.body)),
  );

  routes.patch(
    '/cases/:case_id/comments/:comment_id',
    {
      config: write,
      schema: {
        tags: ['Cases'],
        summary: 'Edit a comment',
        description: 'Edits your own comment; the history keeps the earlier text.',
        params: CommentParams,
        body: CommentBody,
        response: {
          200: CommentSchema,
          403: problemResponse('Only the author may change a comment', 'not_comment_author'),
        },
      },
    },
    async (request) =>
      editComment(
        caseRequest(request),
        { caseRef: request.params.case_id, commentId: request.params.comment_id },
        request.body.body,
      ),
  );

  routes.delete(
    '/cases/:case_id/comments/:comment_id',
    {
      config: write,
      schema: {
        tags: ['Cases'],
        summary: 'Delete a comment',
        description: 'Deletes your own comment; the history keeps its text.',
        params: CommentParams,
        response: {
          204: Type.Null({ description: 'Deleted' }),
          403: problemResponse('Only the author may change a comment', 'not_comment_author'),
        },
      },
    },
    async (request, reply) => {
      await deleteComment(caseRequest(request), {
        caseRef: request.params.case_id,
        commentId: request.params.comment_id,
      });
      return reply.code(204).send(null);
    },
  );

  routes.get(
    '/cases/:case_id/history',
    {
      config: read,
      schema: {
        tags: ['Cases'],
        summary: 'Case history',
        description:
          'Every change to the case, oldest first (`order=desc`: newest first; keep the order while paging): who (user, token or the grouping system), when, and what changed. Times in the changes (`closed_at`) are ISO 8601.',
        params: CaseParams,
        querystring: HistoryQuery,
        response: { 200: Type.Object({ history: Type.Array(HistorySchema), next_cursor: NextCursor }) },
      },
    },
    async (request) => {
      const after = request.query.cursor
        ? decodeCursor<{ s: number }>(request.query.cursor, { s: 'number' }).s
        : undefined;
      const page = await pageHistory(deps.db, tenantOf(request).id, request.params.case_id, {
        limit: request.query.limit ?? 50,
        order: request.query.order ?? 'asc',
        ...(after !== undefined ? { after } : {}),
      });
      return { history: page.history, next_cursor: page.next === null ? null : encodeCursor({ s: page.next }) };
    },
  );
}
