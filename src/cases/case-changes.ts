// The changes people make to a case: status (with the workflow and the resolution rule),
// assignee, tags, severity — each checked against the version the caller read and recorded in
// the history, in one transaction per case.
import { AppError } from '../core/errors.js';
import { writeTransaction } from '../storage/write-transaction.js';
import { findDevicesByIds } from '../devices/device-store.js';
import {
  addHistory,
  caseDeviceIds,
  findCase,
  replaceCaseTags,
  updateCase,
  type CaseRow,
  type Db,
} from './case-store.js';
import { openRequiredTasks } from './work/task-view.js';
import { applyMatchingTemplates } from './work/template-apply.js';
import { slaOnStatusChange } from './work/sla.js';
import { insertComment } from './case-comment-store.js';
import { checkTransition, type CaseStatus } from './case-workflow.js';
import { searchText } from './case-derive.js';
import type { CaseRequest } from './case-context.js';
import { newComment, presentCases, requireCase, resolveAssignee, type CaseView } from './case-service.js';
import type { Resolution } from './case-workflow.js';

export interface CaseChanges {
  status?: CaseStatus;
  resolution?: Resolution;
  closing_comment?: string;
  assignee?: string | null;
  tags?: string[];
  severity?: string;
  /** Close even with required tasks open; `force_reason` says why (kept in the history). */
  force?: boolean;
  force_reason?: string;
}

/** One change to one case, as the caller read it. */
export interface CaseChange {
  idOrNumber: string;
  version: number;
  changes: CaseChanges;
}

/** Applies one case's changes inside `trx`: checks, writes, history. Returns the new row. */
export async function applyCaseChanges(
  trx: Db,
  context: Pick<CaseRequest, 'tenantId' | 'actor'> & { now: number },
  { idOrNumber, version, changes }: CaseChange,
): Promise<CaseRow> {
  const { tenantId, actor, now } = context;
  const row = await requireCase(trx, tenantId, idOrNumber);
  if (row.version !== version) {
    throw new AppError(
      'version_conflict',
      `case ${row.number} is at version ${row.version}, not ${version}: read it again and reapply your change`,
      {
        extensions: { field: 'version', current_version: row.version },
      },
    );
  }
  const set: Partial<CaseRow> = {};
  const diff: Record<string, { from: unknown; to: unknown }> = {};
  const change = <K extends keyof CaseRow>(field: K, to: CaseRow[K], label: string = field) => {
    if (row[field] === to) return;
    set[field] = to;
    diff[label] = { from: row[field], to };
  };
  const status = changes.status ?? (row.status as CaseStatus);
  if (changes.status !== undefined && changes.status !== row.status && row.merged_into !== null) {
    // Its contents live in the case it was merged into; reopening it would revive an empty shell.
    throw new AppError(
      'invalid_status_transition',
      `case ${row.number} was merged into ${row.merged_into}; work on that case instead`,
      {
        extensions: {
          field: 'status',
          from: row.status,
          to: changes.status,
          allowed: [],
          merged_into: row.merged_into,
        },
      },
    );
  }
  if (changes.status !== undefined) checkTransition(row.status as CaseStatus, changes.status);
  if ((changes.resolution !== undefined || changes.closing_comment !== undefined) && status !== 'closed') {
    throw new AppError(
      'invalid_request',
      'resolution and closing_comment belong to a closed case: send them with status closed',
      {
        extensions: { field: changes.resolution !== undefined ? 'resolution' : 'closing_comment' },
      },
    );
  }
  if (status === 'closed' && row.status !== 'closed') {
    if (!changes.resolution) {
      throw new AppError(
        'resolution_required',
        `closing a case needs a resolution: true_positive, benign_true_positive, false_positive, duplicate or inconclusive`,
        { extensions: { field: 'resolution' } },
      );
    }
    await checkRequiredTasks(trx, tenantId, row, changes);
    if (changes.force) diff.forced = { from: null, to: changes.force_reason ?? '' };
    change('status', 'closed');
    change('resolution', changes.resolution);
    change('closed_at', now);
    if (changes.closing_comment !== undefined) change('closing_comment', changes.closing_comment);
  } else if (changes.status !== undefined && changes.status !== row.status) {
    change('status', changes.status);
    // Reopening clears the outcome; the history keeps it.
    if (row.status === 'closed') {
      change('resolution', null);
      change('closing_comment', null);
      change('closed_at', null);
    }
  } else if (status === 'closed') {
    // Already closed: the outcome may be corrected.
    if (changes.resolution !== undefined) change('resolution', changes.resolution);
    if (changes.closing_comment !== undefined) change('closing_comment', changes.closing_comment);
  }
  if (changes.assignee !== undefined)
    change(
      'assignee_id',
      changes.assignee === null ? null : (await resolveAssignee(trx, tenantId, changes.assignee)).id,
      'assignee',
    );
  if (changes.severity !== undefined) {
    change('severity', changes.severity);
    set.severity_manual = 1;
  }
  let tags = JSON.parse(row.tags) as string[];
  if (changes.tags !== undefined) {
    const next = [...new Set(changes.tags.map((tag) => tag.toLowerCase()))];
    if (JSON.stringify(next) !== row.tags) {
      diff.tags = { from: tags, to: next };
      set.tags = JSON.stringify(next);
      tags = next;
      await replaceCaseTags(trx, tenantId, row.id, next);
    }
  }
  if (Object.keys(diff).length === 0) return row;
  if (diff.status) Object.assign(set, slaOnStatusChange(row, status, now));
  if (set.tags !== undefined) {
    const hosts = (
      await findDevicesByIds(trx, tenantId, (await caseDeviceIds(trx, tenantId, [row.id])).get(row.id) ?? [])
    ).map((device) => device.host_name);
    set.search_text = searchText(row.number, row.title, row.description, hosts, tags);
  }
  if (!(await updateCase(trx, tenantId, row.id, row.version, { ...set, updated_at: now }))) {
    throw new AppError('version_conflict', `case ${row.number} changed while it was being updated; read it again`, {
      extensions: { field: 'version' },
    });
  }
  await addHistory(trx, [{ caseId: row.id, tenantId, at: now, actor, action: 'updated', changes: diff }]);
  if (changes.closing_comment !== undefined && diff.closing_comment) {
    await insertComment(trx, newComment(row.id, tenantId, changes.closing_comment, actor, now));
  }
  const added = diff.tags ? tags.filter((tag) => !(JSON.parse(row.tags) as string[]).includes(tag)) : [];
  if (added.length > 0) {
    // A tag may apply templates (their tasks, tags, severity): the case is read again after.
    await applyMatchingTemplates(trx, tenantId, row.id, { ruleIds: [], techniques: [], levels: [], tags: added }, now);
    return (await findCase(trx, tenantId, row.id)) ?? row;
  }
  return { ...row, ...set, updated_at: now, version: row.version + 1 };
}

/** Closing with required tasks open is refused (409 naming them) unless forced with a reason. */
async function checkRequiredTasks(trx: Db, tenantId: number, row: CaseRow, changes: CaseChanges): Promise<void> {
  const open = await openRequiredTasks(trx, tenantId, row.id);
  if (open.length === 0) return;
  if (changes.force && (changes.force_reason ?? '').trim() !== '') return;
  throw new AppError(
    'required_tasks_open',
    `case ${row.number} has ${open.length} required task${open.length === 1 ? '' : 's'} open: ${open
      .map((task) => JSON.stringify(task.title))
      .join(', ')}. Finish them, mark them not applicable, or close with force and a force_reason`,
    { extensions: { field: 'status', open_tasks: open } },
  );
}

export async function patchCase(request: CaseRequest, change: CaseChange): Promise<CaseView> {
  // Stamped once the write lock is held, so updated_at follows commit order (updated_after sync).
  const row = await writeTransaction(request.db, (trx) =>
    applyCaseChanges(trx, { ...request, now: request.now ?? Date.now() }, change),
  );
  const [view] = await presentCases(request, [row]);
  if (!view) throw new Error(`case ${change.idOrNumber} could not be presented`);
  return view;
}

/** Up to 100 cases, each in its own transaction, each answered as a single PATCH would be. */
export async function bulkPatchCases(
  request: CaseRequest,
  items: readonly ({ id: string; version: number } & CaseChanges)[],
) {
  const results = [];
  for (const { id, version, ...changes } of items) {
    try {
      results.push({
        id,
        status: 200,
        case: await patchCase(request, { idOrNumber: id, version, changes }),
      });
    } catch (error) {
      // Earlier items are committed: a storage failure is answered for this item alone, so the
      // caller can tell which changes landed and retry the rest.
      if (!(error instanceof AppError) && !isRetryableStorageError(error)) throw error;
      const problem =
        error instanceof AppError
          ? error
          : new AppError('storage_unavailable', 'the database was busy and could not apply this change; retry it', {
              cause: error,
            });
      results.push({
        id,
        status: problem.status,
        error: { code: problem.code, detail: problem.detail, ...problem.extensions },
      });
    }
  }
  return { results };
}

/** SQLite busy/locked, PostgreSQL deadlock or serialization failure: worth retrying. */
function isRetryableStorageError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || code === '40P01' || code === '40001';
}
