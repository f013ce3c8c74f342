// Case templates: a tenant's named sets of tasks, tags and severity that a case gets when an
// observation of a named rule, technique or level joins it, when it is tagged with a named tag,
// or by hand. A case gets each template once; its history says which, when and why.
import { AppError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { AuditActor } from '../../identity/principal.js';
import type { Db } from '../case-store.js';
import type { AppliesTo, TemplateBody } from './template-schemas.js';
import type { Selectable } from 'kysely';
import type { CaseTemplatesTable } from '../../storage/tables/case-work.js';

export type TemplateRow = Selectable<CaseTemplatesTable>;
export const MAX_TEMPLATES = 200;

export interface TemplateTaskSpec {
  title: string;
  description: string;
  required: boolean;
  assignee_role: string | null;
}

const iso = (time: number) => new Date(time).toISOString();

export function presentTemplate(row: TemplateRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    applies_to: JSON.parse(row.applies_to) as AppliesTo,
    tasks: JSON.parse(row.tasks) as TemplateTaskSpec[],
    tags: JSON.parse(row.tags) as string[],
    severity: row.severity,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    created_by: row.created_by,
  };
}

function columns(body: TemplateBody) {
  const appliesTo: AppliesTo = {
    rule_ids: [...new Set(body.applies_to?.rule_ids ?? [])],
    techniques: [...new Set(body.applies_to?.techniques ?? [])],
    tags: [...new Set((body.applies_to?.tags ?? []).map((tag) => tag.toLowerCase()))],
    levels: [...new Set(body.applies_to?.levels ?? [])],
  };
  const tasks: TemplateTaskSpec[] = body.tasks.map((task) => ({
    title: task.title.trim(),
    description: task.description ?? '',
    required: task.required ?? false,
    assignee_role: task.assignee_role ?? null,
  }));
  return {
    name: body.name.trim(),
    description: body.description ?? '',
    applies_to: JSON.stringify(appliesTo),
    tasks: JSON.stringify(tasks),
    tags: JSON.stringify([...new Set((body.tags ?? []).map((tag) => tag.toLowerCase()))]),
    severity: body.severity ?? null,
  };
}

export function listTemplates(db: Db, tenantId: number): Promise<TemplateRow[]> {
  return db.selectFrom('case_templates').selectAll().where('tenant_id', '=', tenantId).orderBy('name').execute();
}

export async function requireTemplate(db: Db, tenantId: number, id: string): Promise<TemplateRow> {
  const row = await db
    .selectFrom('case_templates')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw new AppError('not_found', `case template ${JSON.stringify(id)} not found`);
  return row;
}

async function checkNameFree(db: Db, tenantId: number, name: string, except?: string): Promise<void> {
  let query = db.selectFrom('case_templates').select('id').where('tenant_id', '=', tenantId).where('name', '=', name);
  if (except) query = query.where('id', '!=', except);
  if (await query.executeTakeFirst())
    throw new AppError('template_name_taken', `a case template is already named ${JSON.stringify(name)}`, {
      extensions: { field: 'name' },
    });
}

export async function createTemplate(db: Db, tenantId: number, body: TemplateBody, actor: AuditActor, now: number) {
  const values = columns(body);
  await checkNameFree(db, tenantId, values.name);
  const count = await db
    .selectFrom('case_templates')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenantId)
    .executeTakeFirstOrThrow();
  if (count.n >= MAX_TEMPLATES)
    throw new AppError('too_many_templates', `a tenant has at most ${MAX_TEMPLATES} case templates`);
  const row: TemplateRow = {
    id: newId('tpl'),
    tenant_id: tenantId,
    ...values,
    created_at: now,
    updated_at: now,
    created_by: actor.label,
  };
  await db.insertInto('case_templates').values(row).execute();
  return row;
}

export async function replaceTemplate(db: Db, tenantId: number, id: string, body: TemplateBody, now: number) {
  const existing = await requireTemplate(db, tenantId, id);
  const values = columns(body);
  await checkNameFree(db, tenantId, values.name, id);
  await db
    .updateTable('case_templates')
    .set({ ...values, updated_at: now })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
  return { ...existing, ...values, updated_at: now };
}

export async function deleteTemplate(db: Db, tenantId: number, id: string): Promise<TemplateRow> {
  const existing = await requireTemplate(db, tenantId, id);
  await db.deleteFrom('case_templates').where('tenant_id', '=', tenantId).where('id', '=', id).execute();
  return existing;
}

/** What joined a case, for matching templates against. */
export interface CaseTrigger {
  ruleIds: readonly string[];
  techniques: readonly string[];
  levels: readonly string[];
  tags: readonly string[];
}

/** Why `template` applies to what joined the case (`rule:<id>`, …), or undefined. */
export function matchReason(template: TemplateRow, trigger: CaseTrigger): string | undefined {
  const appliesTo = JSON.parse(template.applies_to) as AppliesTo;
  const first = (wanted: readonly string[] | undefined, seen: readonly string[], kind: string) => {
    const hit = (wanted ?? []).find((value) => seen.includes(value));
    return hit === undefined ? undefined : `${kind}:${hit}`;
  };
  const techniques = trigger.techniques.flatMap((technique) => [technique, technique.split('.')[0] ?? technique]);
  return (
    first(appliesTo.rule_ids, trigger.ruleIds, 'rule') ??
    first(appliesTo.techniques, techniques, 'technique') ??
    first(appliesTo.levels, trigger.levels, 'level') ??
    first(appliesTo.tags, trigger.tags, 'tag')
  );
}
