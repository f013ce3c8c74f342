// The tasks on a case: from its templates or added by hand, each with a status, an assignee and a
// due time; done and not-applicable tasks record who closed them and when. Every change is in
// the case's history.
import { AppError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { AuditActor } from '../../identity/principal.js';
import { addHistory, type Db } from '../case-store.js';
import { resolveAssignee } from '../case-service.js';
import type { NewTaskBody, TaskChangeBody } from './template-schemas.js';
import { closedTaskStatuses, listTasks, type TaskRow } from './task-view.js';

export const MAX_TASKS_PER_CASE = 200;

export interface NewTask {
  title: string;
  description: string;
  required: boolean;
  assigneeRole: string | null;
  assigneeId: string | null;
  dueAt: number | null;
  templateId: string | null;
}

/** Appends tasks after the case's last one. */
export async function insertTasks(db: Db, tenantId: number, caseId: string, tasks: readonly NewTask[], now: number) {
  if (tasks.length === 0) return [];
  const existing = await listTasks(db, tenantId, caseId);
  if (existing.length + tasks.length > MAX_TASKS_PER_CASE)
    throw new AppError('too_many_tasks', `a case holds at most ${MAX_TASKS_PER_CASE} tasks`);
  const start = (existing.at(-1)?.position ?? 0) + 1;
  const rows: TaskRow[] = tasks.map((task, i) => ({
    id: newId('task'),
    tenant_id: tenantId,
    case_id: caseId,
    template_id: task.templateId,
    position: start + i,
    title: task.title,
    description: task.description,
    required: task.required ? 1 : 0,
    assignee_role: task.assigneeRole,
    assignee_id: task.assigneeId,
    status: 'todo',
    due_at: task.dueAt,
    completed_at: null,
    completed_by: null,
    created_at: now,
    updated_at: now,
  }));
  await db.insertInto('case_tasks').values(rows).execute();
  return rows;
}

function dueTime(value: string | null | undefined): number | null | undefined {
  if (value === undefined || value === null) return value;
  return Date.parse(value);
}

export async function addTask(
  db: Db,
  tenantId: number,
  caseId: string,
  body: NewTaskBody,
  actor: AuditActor,
  now: number,
) {
  const assignee = body.assignee ? (await resolveAssignee(db, tenantId, body.assignee)).id : null;
  const [row] = await insertTasks(
    db,
    tenantId,
    caseId,
    [
      {
        title: body.title.trim(),
        description: body.description ?? '',
        required: body.required ?? false,
        assigneeRole: null,
        assigneeId: assignee,
        dueAt: dueTime(body.due_at) ?? null,
        templateId: null,
      },
    ],
    now,
  );
  if (!row) throw new Error('the task was not inserted');
  await addHistory(db, [
    { caseId, tenantId, at: now, actor, action: 'task_added', changes: { task_id: row.id, title: row.title } },
  ]);
  return row;
}

export async function requireTask(db: Db, tenantId: number, caseId: string, taskId: string): Promise<TaskRow> {
  const row = await db
    .selectFrom('case_tasks')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('case_id', '=', caseId)
    .where('id', '=', taskId)
    .executeTakeFirst();
  if (!row) throw new AppError('not_found', `task ${JSON.stringify(taskId)} not found on this case`);
  return row;
}

export async function changeTask(
  db: Db,
  tenantId: number,
  caseId: string,
  taskId: string,
  body: TaskChangeBody,
  actor: AuditActor,
  now: number,
): Promise<TaskRow> {
  const row = await requireTask(db, tenantId, caseId, taskId);
  const set: Partial<TaskRow> = {};
  const diff: Record<string, { from: unknown; to: unknown }> = {};
  const change = <K extends keyof TaskRow>(field: K, to: TaskRow[K], label: string = field) => {
    if (row[field] === to) return;
    set[field] = to;
    diff[label] = { from: row[field], to };
  };
  if (body.title !== undefined) change('title', body.title.trim());
  if (body.description !== undefined) change('description', body.description);
  if (body.required !== undefined) change('required', body.required ? 1 : 0);
  if (body.assignee !== undefined)
    change(
      'assignee_id',
      body.assignee === null ? null : (await resolveAssignee(db, tenantId, body.assignee)).id,
      'assignee',
    );
  if (body.due_at !== undefined) change('due_at', dueTime(body.due_at) ?? null);
  if (body.status !== undefined && body.status !== row.status) {
    change('status', body.status);
    const closing = closedTaskStatuses.includes(body.status);
    set.completed_at = closing ? now : null;
    set.completed_by = closing ? actor.label : null;
  }
  if (Object.keys(diff).length === 0) return row;
  await db
    .updateTable('case_tasks')
    .set({ ...set, updated_at: now })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', taskId)
    .execute();
  await addHistory(db, [
    {
      caseId,
      tenantId,
      at: now,
      actor,
      action: 'task_updated',
      changes: { task_id: taskId, title: row.title, ...diff },
    },
  ]);
  return { ...row, ...set, updated_at: now };
}

export async function removeTask(
  db: Db,
  tenantId: number,
  caseId: string,
  taskId: string,
  actor: AuditActor,
  now: number,
) {
  const row = await requireTask(db, tenantId, caseId, taskId);
  await db.deleteFrom('case_tasks').where('tenant_id', '=', tenantId).where('id', '=', taskId).execute();
  await addHistory(db, [
    { caseId, tenantId, at: now, actor, action: 'task_removed', changes: { task_id: taskId, title: row.title } },
  ]);
}
