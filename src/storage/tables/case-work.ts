// The work inside cases: templates (tasks and defaults a case gets by rule, technique, tag or
// level), the tasks on each case, which templates each case got, and the tenant's SLA policy.

export interface CaseTemplatesTable {
  id: string;
  tenant_id: number;
  name: string;
  description: string;
  /** JSON: {rule_ids, techniques, tags, levels}: any one matching applies the template. */
  applies_to: string;
  /** JSON: [{title, description, required, assignee_role}] in order. */
  tasks: string;
  /** JSON array of tags the case gets. */
  tags: string;
  /** The severity the case gets (raised to, never lowered); null: unchanged. */
  severity: string | null;
  created_at: number;
  updated_at: number;
  created_by: string;
}

export interface CaseTasksTable {
  id: string;
  tenant_id: number;
  case_id: string;
  /** The template it came from; null: added by hand. */
  template_id: string | null;
  position: number;
  title: string;
  description: string;
  required: number;
  /** `analyst` or `admin`: who is expected to do it; null: anyone. */
  assignee_role: string | null;
  assignee_id: string | null;
  /** `todo`, `in_progress`, `done`, `not_applicable`. */
  status: string;
  due_at: number | null;
  completed_at: number | null;
  completed_by: string | null;
  created_at: number;
  updated_at: number;
}

export interface CaseTemplateUsesTable {
  tenant_id: number;
  case_id: string;
  template_id: string;
  applied_at: number;
  /** Why: `rule:<id>`, `technique:<id>`, `tag:<tag>`, `level:<level>` or `manual`. */
  reason: string;
}

export interface SlaPoliciesTable {
  tenant_id: number;
  severity: string;
  acknowledge_s: number;
  resolve_s: number;
  updated_at: number;
  updated_by: string;
}
