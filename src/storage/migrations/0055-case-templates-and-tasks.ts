// Case templates and tasks: a tenant's templates, the tasks on each case (from a template or
// added by hand), and which template each case got, when and why.
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  const bigint = kind === 'sqlite' ? sql`INTEGER` : sql`BIGINT`;
  await sql`CREATE TABLE case_templates (
    id TEXT PRIMARY KEY,
    tenant_id ${bigint} NOT NULL REFERENCES tenants (id),
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    applies_to TEXT NOT NULL,
    tasks TEXT NOT NULL,
    tags TEXT NOT NULL,
    severity TEXT,
    created_at ${bigint} NOT NULL,
    updated_at ${bigint} NOT NULL,
    created_by TEXT NOT NULL
  )`.execute(db);
  await sql`CREATE UNIQUE INDEX case_templates_tenant_name ON case_templates (tenant_id, name)`.execute(db);
  await sql`CREATE TABLE case_tasks (
    id TEXT PRIMARY KEY,
    tenant_id ${bigint} NOT NULL REFERENCES tenants (id),
    case_id TEXT NOT NULL,
    template_id TEXT,
    position INTEGER NOT NULL,
    title TEXT NOT NULL,
    description TEXT NOT NULL,
    required INTEGER NOT NULL,
    assignee_role TEXT,
    assignee_id TEXT,
    status TEXT NOT NULL,
    due_at ${bigint},
    completed_at ${bigint},
    completed_by TEXT,
    created_at ${bigint} NOT NULL,
    updated_at ${bigint} NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX case_tasks_case ON case_tasks (tenant_id, case_id, position)`.execute(db);
  await sql`CREATE TABLE case_template_uses (
    tenant_id ${bigint} NOT NULL REFERENCES tenants (id),
    case_id TEXT NOT NULL,
    template_id TEXT NOT NULL,
    applied_at ${bigint} NOT NULL,
    reason TEXT NOT NULL,
    PRIMARY KEY (case_id, template_id)
  )`.execute(db);
}
