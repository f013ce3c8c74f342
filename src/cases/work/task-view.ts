// The tasks on a case as they are read: in order, with their assignees and templates named, and
// the required ones still open (a case closes with those only when forced).
import type { Selectable } from 'kysely';
import type { CaseTasksTable } from '../../storage/tables/case-work.js';
import type { Db } from '../case-store.js';
import type { TaskStatus } from './template-schemas.js';

export type TaskRow = Selectable<CaseTasksTable>;

const iso = (time: number) => new Date(time).toISOString();
const isoOrNull = (time: number | null) => (time === null ? null : iso(time));
export const closedTaskStatuses: readonly string[] = ['done', 'not_applicable'];

export function listTasks(db: Db, tenantId: number, caseId: string): Promise<TaskRow[]> {
  return db
    .selectFrom('case_tasks')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('case_id', '=', caseId)
    .orderBy('position')
    .orderBy('id')
    .execute();
}

/** The tasks as the API shows them, with their assignees and templates named. */
export async function presentTasks(db: Db, tenantId: number, rows: readonly TaskRow[]) {
  const people = new Map<string, { id: string; email: string; name: string }>();
  const assignees = [...new Set(rows.map((row) => row.assignee_id).filter((id): id is string => id !== null))];
  if (assignees.length > 0)
    for (const person of await db
      .selectFrom('users')
      .select(['id', 'email', 'name'])
      .where('tenant_id', '=', tenantId)
      .where('id', 'in', assignees)
      .execute())
      people.set(person.id, person);
  const templateIds = [...new Set(rows.map((row) => row.template_id).filter((id): id is string => id !== null))];
  const templates = new Map<string, string>();
  if (templateIds.length > 0)
    for (const template of await db
      .selectFrom('case_templates')
      .select(['id', 'name'])
      .where('tenant_id', '=', tenantId)
      .where('id', 'in', templateIds)
      .execute())
      templates.set(template.id, template.name);
  return rows.map((row) => ({
    id: row.id,
    title: row.title,
    description: row.description,
    required: row.required === 1,
    status: row.status as TaskStatus,
    assignee_role: row.assignee_role,
    assignee: row.assignee_id ? (people.get(row.assignee_id) ?? null) : null,
    due_at: isoOrNull(row.due_at),
    completed_at: isoOrNull(row.completed_at),
    completed_by: row.completed_by,
    template: row.template_id ? { id: row.template_id, name: templates.get(row.template_id) ?? '(deleted)' } : null,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  }));
}

export type TaskView = Awaited<ReturnType<typeof presentTasks>>[number];

/** The required tasks still open on the case: closing it needs them done or a forced close. */
export async function openRequiredTasks(db: Db, tenantId: number, caseId: string) {
  return (await listTasks(db, tenantId, caseId))
    .filter((row) => row.required === 1 && !closedTaskStatuses.includes(row.status))
    .map((row) => ({ id: row.id, title: row.title, status: row.status }));
}
