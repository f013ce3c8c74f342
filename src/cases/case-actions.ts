// The case actions beside updates and search: counts, merge, comments and the history. Each write runs in
// one transaction with its history entry.
import type { Kysely } from 'kysely';
import type { Tables } from '../storage/schema.js';
import { AppError } from '../core/errors.js';
import { writeTransaction } from '../storage/write-transaction.js';
import { findDevicesByIds } from '../devices/device-store.js';
import {
  addHistory,
  caseDeviceIds,
  countCasesByStatus,
  listHistory,
  lockCases,
  moveCaseParts,
  replaceCaseTags,
  updateCase,
  type CaseRow,
  type Db,
} from './case-store.js';
import { findComment, insertComment, listComments, updateComment } from './case-comment-store.js';
import { moveObservables } from './case-observable-store.js';
import { contentsOf, deriveFields, mergeContents, severityFor } from './case-derive.js';
import { newComment, presentCases, presentComment, requireCase, type CaseView, type Severity } from './case-service.js';
import { statuses, type CaseStatus } from './case-workflow.js';
import type { CaseRequest } from './case-context.js';

/** GET /v1/cases/counts: every status, and the open cases per severity, zero included. */
export async function caseCounts(db: Kysely<Tables>, tenantId: number) {
  const open = statuses.filter((status) => status !== 'closed');
  const counted = await countCasesByStatus(db, tenantId, open);
  const byStatus = Object.fromEntries(statuses.map((status) => [status, 0])) as Record<CaseStatus, number>;
  const openBySeverity: Record<Severity, number> = { low: 0, medium: 0, high: 0, critical: 0 };
  for (const row of counted.open) {
    byStatus[row.status as CaseStatus] += row.n;
    openBySeverity[row.severity as Severity] += row.n;
  }
  // The workflow knows no other status: whatever is not open is closed.
  byStatus.closed = counted.total - open.reduce((sum, status) => sum + byStatus[status], 0);
  return { by_status: byStatus, open_by_severity: openBySeverity };
}

/** Merges `sources` into `target`: their observations, devices, techniques, tags and observables move; they close as duplicates. */
export async function mergeCases(
  request: CaseRequest,
  merge: { targetRef: string; sourceRefs: readonly string[] },
): Promise<CaseView> {
  const { db, locks, catalogue, tenantId, actor } = request;
  const { targetRef, sourceRefs } = merge;
  const merged = await writeTransaction(db, async (trx) => {
    // Stamped once the write lock is held, so updated_at follows commit order.
    const now = request.now ?? Date.now();
    const targetId = (await requireCase(trx, tenantId, targetRef)).id;
    const sourceIds = [];
    for (const ref of sourceRefs) sourceIds.push((await requireCase(trx, tenantId, ref)).id);
    // Every case row involved is locked first, in id order, before any of their parts is
    // touched: grouping locks a case row before its parts, so the same order cannot deadlock.
    const locked = new Map(
      (await lockCases(trx, locks, tenantId, [targetId, ...sourceIds])).map((row) => [row.id, row]),
    );
    const lockedCase = (id: string) => {
      const row = locked.get(id);
      if (!row) throw new Error(`case ${id} vanished while it was locked for the merge`);
      return row;
    };
    const target = lockedCase(targetId);
    if (target.status === 'closed')
      throw new AppError('invalid_merge', `case ${target.number} is closed; reopen it before merging into it`, {
        extensions: { field: 'target' },
      });
    if (target.merged_into !== null)
      throw new AppError(
        'invalid_merge',
        `case ${target.number} was merged into ${target.merged_into}; merge into that case instead`,
        { extensions: { field: 'target' } },
      );
    const sources: CaseRow[] = [];
    for (const id of sourceIds) {
      const source = lockedCase(id);
      if (source.id === target.id)
        throw new AppError('invalid_merge', `case ${source.number} cannot be merged into itself`, {
          extensions: { field: 'sources' },
        });
      if (source.merged_into !== null)
        throw new AppError('invalid_merge', `case ${source.number} was already merged into ${source.merged_into}`, {
          extensions: { field: 'sources' },
        });
      if (!sources.some((known) => known.id === source.id)) sources.push(source);
    }
    const contents = contentsOf(target);
    const tags = new Set(JSON.parse(target.tags) as string[]);
    for (const source of sources) {
      await moveCaseParts(trx, tenantId, source.id, target.id);
      await moveObservables(trx, tenantId, source.id, target.id);
      mergeContents(contents, contentsOf(source));
      for (const tag of JSON.parse(source.tags) as string[]) tags.add(tag);
      const closed = await updateCase(trx, tenantId, source.id, source.version, {
        status: 'closed',
        resolution: 'duplicate',
        closed_at: source.closed_at ?? now,
        merged_into: target.id,
        // Read alone, the old description would still claim the observations that moved.
        description: mergedDescription(target.number, now, source.description),
        // Its contents now belong to the target; the history keeps what they were.
        observation_count: 0,
        rules: '[]',
        techniques: '[]',
        tactics: '[]',
        tags: '[]',
        updated_at: now,
      });
      if (!closed) throw new AppError('version_conflict', `case ${source.number} changed during the merge; try again`);
      await addHistory(trx, [
        {
          caseId: source.id,
          tenantId,
          at: now,
          actor,
          action: 'merged_into',
          changes: {
            target: { id: target.id, number: target.number },
            status: { from: source.status, to: 'closed' },
            resolution: { from: source.resolution, to: 'duplicate' },
            observation_count: { from: source.observation_count, to: 0 },
            techniques: { from: JSON.parse(source.techniques) as string[], to: [] },
            tags: { from: JSON.parse(source.tags) as string[], to: [] },
          },
        },
      ]);
    }
    const deviceIds = (await caseDeviceIds(trx, tenantId, [target.id])).get(target.id) ?? [];
    const devices = await findDevicesByIds(trx, tenantId, deviceIds);
    const tagList = [...tags];
    const derived = deriveFields(contents, devices, tagList, catalogue);
    await replaceCaseTags(trx, tenantId, target.id, tagList);
    const updated = {
      ...derived,
      severity: severityFor(target, derived.max_level),
      tags: JSON.stringify(tagList),
      updated_at: now,
    };
    if (!(await updateCase(trx, tenantId, target.id, target.version, updated))) {
      throw new AppError('version_conflict', `case ${target.number} changed during the merge; try again`);
    }
    await addHistory(trx, [
      {
        caseId: target.id,
        tenantId,
        at: now,
        actor,
        action: 'merged',
        changes: {
          sources: sources.map((source) => ({
            id: source.id,
            number: source.number,
            observation_count: source.observation_count,
          })),
          observation_count: { from: target.observation_count, to: derived.observation_count },
          score: { from: target.score, to: derived.score },
        },
      },
    ]);
    return { ...target, ...updated, version: target.version + 1 };
  });
  const [view] = await presentCases(request, [merged]);
  if (!view) throw new Error(`case ${targetRef} could not be presented after the merge`);
  return view;
}

export async function addComment(request: CaseRequest, caseRef: string, body: string) {
  const { db, tenantId, actor } = request;
  const now = request.now ?? Date.now();
  return writeTransaction(db, async (trx) => {
    const row = await requireCase(trx, tenantId, caseRef);
    const comment = newComment(row.id, tenantId, body, actor, now);
    await insertComment(trx, comment);
    await addHistory(trx, [
      { caseId: row.id, tenantId, at: now, actor, action: 'commented', changes: { comment_id: comment.id } },
    ]);
    return presentComment({ ...comment, seq: 0 });
  });
}

/** The comment named, on the case named, once the actor is known to be its author. */
async function ownComment(trx: Db, request: CaseRequest, target: CommentTarget) {
  const { tenantId, actor } = request;
  const row = await requireCase(trx, tenantId, target.caseRef);
  const comment = await findComment(trx, tenantId, row.id, target.commentId);
  if (!comment) throw new AppError('not_found', `comment ${target.commentId} not found on case ${row.number}`);
  if (comment.author_type !== actor.type || comment.author_id !== (actor.id ?? actor.label)) {
    throw new AppError(
      'not_comment_author',
      `only its author (${comment.author_label}) can change comment ${target.commentId}`,
    );
  }
  return { row, comment };
}

export interface CommentTarget {
  caseRef: string;
  commentId: string;
}

/** Edits a comment; only its author may. The history keeps the earlier text. */
export async function editComment(request: CaseRequest, target: CommentTarget, body: string) {
  const { db, tenantId, actor } = request;
  const now = request.now ?? Date.now();
  return writeTransaction(db, async (trx) => {
    const { row, comment } = await ownComment(trx, request, target);
    await updateComment(trx, tenantId, comment.id, { body, updated_at: now });
    await addHistory(trx, [
      {
        caseId: row.id,
        tenantId,
        at: now,
        actor,
        action: 'comment_edited',
        changes: { comment_id: comment.id, body: { from: comment.body, to: body } },
      },
    ]);
    return presentComment({ ...comment, body, updated_at: now });
  });
}

/** Deletes a comment; only its author may. The history keeps its text. */
export async function deleteComment(request: CaseRequest, target: CommentTarget): Promise<void> {
  const { db, tenantId, actor } = request;
  const now = request.now ?? Date.now();
  await writeTransaction(db, async (trx) => {
    const { row, comment } = await ownComment(trx, request, target);
    await updateComment(trx, tenantId, comment.id, { deleted_at: now });
    await addHistory(trx, [
      {
        caseId: row.id,
        tenantId,
        at: now,
        actor,
        action: 'comment_deleted',
        changes: { comment_id: comment.id, body: { from: comment.body, to: null } },
      },
    ]);
  });
}

export async function pageComments(
  db: Kysely<Tables>,
  tenantId: number,
  caseRef: string,
  page: { limit: number; after?: number },
) {
  const row = await requireCase(db, tenantId, caseRef);
  const rows = await listComments(db, tenantId, row.id, { ...page, limit: page.limit + 1 });
  const shown = rows.slice(0, page.limit);
  return { comments: shown.map(presentComment), next: rows.length > page.limit ? (shown.at(-1)?.seq ?? null) : null };
}

export async function pageHistory(
  db: Kysely<Tables>,
  tenantId: number,
  caseRef: string,
  page: { limit: number; after?: number; order?: 'asc' | 'desc' },
) {
  const row = await requireCase(db, tenantId, caseRef);
  const rows = await listHistory(db, tenantId, row.id, { ...page, limit: page.limit + 1 });
  const shown = rows.slice(0, page.limit);
  return {
    history: shown.map((entry) => ({
      at: new Date(entry.at).toISOString(),
      actor: { type: entry.actor_type, id: entry.actor_id, label: entry.actor_label },
      action: entry.action,
      changes: timesAsIso(JSON.parse(entry.changes) as Record<string, unknown>),
    })),
    next: rows.length > page.limit ? (shown.at(-1)?.seq ?? null) : null,
  };
}

/** Times in a change (`closed_at`: {from, to}) are stored as epoch milliseconds and shown as ISO 8601. */
function timesAsIso(changes: Record<string, unknown>): Record<string, unknown> {
  const asIso = (value: unknown) => (typeof value === 'number' ? new Date(value).toISOString() : value);
  return Object.fromEntries(
    Object.entries(changes).map(([field, value]) => {
      if (!field.endsWith('_at')) return [field, value];
      if (typeof value === 'object' && value !== null && 'from' in value && 'to' in value)
        return [field, { from: asIso(value.from), to: asIso(value.to) }];
      return [field, asIso(value)];
    }),
  );
}

/** The description of a case merged away: where its contents went, then what it said before. */
function mergedDescription(targetNumber: number, at: number, before: string): string {
  const when = `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return `Merged into case #${targetNumber} on ${when}: its observations, devices, techniques and tags are on that case now.\n\nBefore the merge:\n\n${before}`;
}
