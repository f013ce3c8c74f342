// Applying a template to a case: its tasks are appended, its tags added, the severity raised to
// its own (never lowered, and a severity a person set stays), and the case's history says which
// template, when and why. A case gets each template once, however often it matches again.
import { findDevicesByIds } from '../../devices/device-store.js';
import type { AuditActor } from '../../identity/principal.js';
import {
  addHistory,
  caseDeviceIds,
  findCase,
  replaceCaseTags,
  updateCase,
  type CaseRow,
  type Db,
} from '../case-store.js';
import { searchText } from '../case-derive.js';
import { insertTasks } from './task-service.js';
import {
  listTemplates,
  matchReason,
  type CaseTrigger,
  type TemplateRow,
  type TemplateTaskSpec,
} from './template-service.js';

const severityRank: Record<string, number> = { low: 0, medium: 1, high: 2, critical: 3 };
const templateActor: AuditActor = { type: 'system', id: null, label: 'case templates' };

/** Applies `template` to the case unless it already has it; false when it had. */
export async function applyTemplate(
  db: Db,
  row: CaseRow,
  template: TemplateRow,
  reason: string,
  actor: AuditActor,
  now: number,
): Promise<boolean> {
  const tenantId = row.tenant_id;
  // The caller's transaction holds the case's row, so nobody applies the same template meanwhile.
  const used = await db
    .selectFrom('case_template_uses')
    .select('applied_at')
    .where('case_id', '=', row.id)
    .where('template_id', '=', template.id)
    .executeTakeFirst();
  if (used) return false;
  await db
    .insertInto('case_template_uses')
    .values({ tenant_id: tenantId, case_id: row.id, template_id: template.id, applied_at: now, reason })
    .execute();
  const tasks = JSON.parse(template.tasks) as TemplateTaskSpec[];
  await insertTasks(
    db,
    tenantId,
    row.id,
    tasks.map((task) => ({
      title: task.title,
      description: task.description,
      required: task.required,
      assigneeRole: task.assignee_role,
      assigneeId: null,
      dueAt: null,
      templateId: template.id,
    })),
    now,
  );
  const changes = await caseDefaults(db, row, template, now);
  await addHistory(db, [
    {
      caseId: row.id,
      tenantId,
      at: now,
      actor,
      action: 'template_applied',
      changes: { template_id: template.id, template: template.name, reason, tasks: tasks.length, ...changes },
    },
  ]);
  return true;
}

/** The template's tags and severity on the case; what changed, for the history. */
async function caseDefaults(db: Db, row: CaseRow, template: TemplateRow, now: number) {
  const current = JSON.parse(row.tags) as string[];
  const tags = [...new Set([...current, ...(JSON.parse(template.tags) as string[])])];
  const set: Partial<CaseRow> = {};
  const diff: Record<string, { from: unknown; to: unknown }> = {};
  if (tags.length !== current.length) {
    await replaceCaseTags(db, row.tenant_id, row.id, tags);
    const devices = await findDevicesByIds(
      db,
      row.tenant_id,
      (await caseDeviceIds(db, row.tenant_id, [row.id])).get(row.id) ?? [],
    );
    set.tags = JSON.stringify(tags);
    set.search_text = searchText(
      row.number,
      row.title,
      row.description,
      devices.map((device) => device.host_name),
      tags,
    );
    diff.tags = { from: current, to: tags };
  }
  const severity = template.severity;
  if (severity !== null && !row.severity_manual && (severityRank[severity] ?? 0) > (severityRank[row.severity] ?? 0)) {
    set.severity = severity;
    diff.severity = { from: row.severity, to: severity };
  }
  if (
    Object.keys(set).length > 0 &&
    !(await updateCase(db, row.tenant_id, row.id, row.version, { ...set, updated_at: now }))
  )
    throw new Error(`case ${row.id} changed while a template was applied to it`);
  return diff;
}

/**
 * Every template of the tenant that what joined the case matches, applied once each. Runs in the
 * transaction that changed the case (grouping, a tag change), which holds the case's row.
 */
export async function applyMatchingTemplates(
  db: Db,
  tenantId: number,
  caseId: string,
  trigger: CaseTrigger,
  now: number,
): Promise<void> {
  const templates = await listTemplates(db, tenantId);
  if (templates.length === 0) return;
  for (const template of templates) {
    const reason = matchReason(template, trigger);
    if (reason === undefined) continue;
    const row = await findCase(db, tenantId, caseId);
    if (!row) return;
    await applyTemplate(db, row, template, reason, templateActor, now);
  }
}
