// Cases as the API shows them: the list form, one case with everything on it, comments, and
// the people they name. Reading has no side effect (case-changes.ts writes).
import type { AuditActor } from '../identity/principal.js';
import { AppError } from '../core/errors.js';
import { presentDevices } from '../devices/device-service.js';
import { findDevicesByIds } from '../devices/device-store.js';
import { presentObservation } from '../observations/observation-service.js';
import { caseDeviceIds, casesMergedInto, findCase, type CaseRow, type Db } from './case-store.js';
import { listComments, type CommentRow } from './case-comment-store.js';
import type { CaseStatus, Resolution } from './case-workflow.js';
import { newId } from '../core/ids.js';
import type { CaseReader } from './case-context.js';
import { caseSla, readSlaPolicy } from './work/sla.js';
import { listTasks, presentTasks } from './work/task-view.js';

export type Severity = 'low' | 'medium' | 'high' | 'critical';

const iso = (time: number) => new Date(time).toISOString();
const isoOrNull = (time: number | null) => (time === null ? null : iso(time));

interface Person {
  id: string;
  email: string;
  name: string;
}

async function peopleById(db: Db, tenantId: number, ids: readonly (string | null)[]): Promise<Map<string, Person>> {
  const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
  if (wanted.length === 0) return new Map();
  const rows = await db
    .selectFrom('users')
    .select(['id', 'email', 'name'])
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', wanted)
    .execute();
  return new Map(rows.map((row) => [row.id, row]));
}

/** A user of the tenant named by id or email. */
export async function resolveAssignee(db: Db, tenantId: number, idOrEmail: string): Promise<Person> {
  const value = idOrEmail.trim();
  const row = await db
    .selectFrom('users')
    .select(['id', 'email', 'name'])
    .where('tenant_id', '=', tenantId)
    .where('disabled_at', 'is', null)
    .where((eb) => (value.includes('@') ? eb('email', '=', value.toLowerCase()) : eb('id', '=', value)))
    .executeTakeFirst();
  if (!row)
    throw new AppError('unknown_assignee', `${JSON.stringify(value)} is not an active user of this tenant`, {
      extensions: { field: 'assignee' },
    });
  return row;
}

/** The list form of cases, in the order given. */
export async function presentCases(reader: CaseReader, rows: readonly CaseRow[]) {
  const { db, catalogue, tenantId } = reader;
  const deviceIds = await caseDeviceIds(
    db,
    tenantId,
    rows.map((row) => row.id),
  );
  const devices = new Map(
    (await findDevicesByIds(db, tenantId, [...new Set([...deviceIds.values()].flat())])).map((device) => [
      device.id,
      device,
    ]),
  );
  const people = await peopleById(
    db,
    tenantId,
    rows.map((row) => row.assignee_id),
  );
  const tenant = await db
    .selectFrom('tenants')
    .select(['code_name', 'name', 'ai_summaries_enabled'])
    .where('id', '=', tenantId)
    .executeTakeFirstOrThrow();
  const summariesOn = tenant.ai_summaries_enabled === 1;
  const slaPolicy = await readSlaPolicy(db, tenantId);
  const now = Date.now();
  const devicesOf = (row: CaseRow) =>
    (deviceIds.get(row.id) ?? []).map((id) => devices.get(id)).filter((device) => device !== undefined);
  // Opted out: no summary is shown, and the case says why.
  const summaries = summariesOn
    ? await reader.summaries.shownOn(
        db,
        tenantId,
        rows.map((row) => ({ row, devices: devicesOf(row) })),
      )
    : new Map<string, object>();
  return rows.map((row) => {
    const caseDevices = devicesOf(row);
    const summary = summaries.get(row.id);
    const techniques = JSON.parse(row.techniques) as string[];
    return {
      id: row.id,
      number: row.number,
      tenant: { code_name: tenant.code_name, name: tenant.name },
      title: row.title,
      description: row.description,
      score: row.score,
      severity: row.severity as Severity,
      status: row.status as CaseStatus,
      resolution: row.resolution as Resolution | null,
      closing_comment: row.closing_comment,
      assignee: row.assignee_id ? (people.get(row.assignee_id) ?? null) : null,
      tags: JSON.parse(row.tags) as string[],
      techniques: techniques.map((id) => {
        const technique = catalogue.technique(id);
        return {
          id,
          name: technique?.name ?? null,
          tactics: (technique?.tactics ?? []).map((shortname) => catalogue.tactic(shortname)?.name ?? shortname),
        };
      }),
      tactics: JSON.parse(row.tactics) as string[],
      devices: caseDevices.map((device) => ({
        id: device.id,
        host_name: device.host_name,
        criticality: device.criticality,
      })),
      observation_count: row.observation_count,
      created_at: iso(row.created_at),
      updated_at: iso(row.updated_at),
      first_observation_at: iso(row.first_observation_at),
      last_observation_at: iso(row.last_observation_at),
      closed_at: isoOrNull(row.closed_at),
      merged_into: row.merged_into,
      version: row.version,
      sla: caseSla(row, slaPolicy, now),
      // Only a summary someone generated; reading never generates one.
      summary: summary ?? null,
      summary_unavailable: summariesOn
        ? null
        : { code: 'ai_summaries_disabled', detail: 'AI summaries are turned off for this organisation' },
    };
  });
}

export type CaseView = Awaited<ReturnType<typeof presentCases>>[number];

export function presentComment(row: CommentRow) {
  return {
    id: row.id,
    body: row.body,
    author: { type: row.author_type, id: row.author_id, label: row.author_label },
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/** A comment row by `actor`, not yet stored. */
export function newComment(
  caseId: string,
  tenantId: number,
  body: string,
  actor: AuditActor,
  now: number,
): Omit<CommentRow, 'seq'> {
  return {
    id: newId('cmt'),
    case_id: caseId,
    tenant_id: tenantId,
    author_type: actor.type,
    author_id: actor.id ?? actor.label,
    author_label: actor.label,
    body,
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
}

export async function requireCase(db: Db, tenantId: number, idOrNumber: string): Promise<CaseRow> {
  const row = await findCase(db, tenantId, idOrNumber);
  if (!row) throw new AppError('not_found', `case ${idOrNumber} not found`);
  return row;
}

export const MAX_DETAIL_OBSERVATIONS = 500;

/** One case with everything on it (DFIR-IRIS users' "one call"). */
export async function getCaseDetail(reader: CaseReader, idOrNumber: string) {
  const { db, catalogue, tenantId } = reader;
  const row = await requireCase(db, tenantId, idOrNumber);
  const [view] = await presentCases(reader, [row]);
  if (!view) throw new Error(`case ${idOrNumber} could not be presented`);
  const devices = await presentDevices(
    db,
    tenantId,
    await findDevicesByIds(
      db,
      tenantId,
      view.devices.map((device) => device.id),
    ),
  );
  const observations = await db
    .selectFrom('case_observations as co')
    .innerJoin('observations as o', 'o.id', 'co.observation_id')
    .selectAll('o')
    .where('co.tenant_id', '=', tenantId)
    .where('co.case_id', '=', row.id)
    .orderBy('o.first_time')
    .orderBy('o.seq')
    .limit(MAX_DETAIL_OBSERVATIONS)
    .execute();
  const comments = await listComments(db, tenantId, row.id, { limit: 100 });
  const into = row.merged_into === null ? undefined : await findCase(db, tenantId, row.merged_into);
  return {
    ...view,
    merge: {
      into: into ? { id: into.id, number: into.number } : null,
      from: await casesMergedInto(db, tenantId, row.id),
    },
    devices,
    observations: observations.map((observation) => presentObservation(observation, catalogue)),
    comments: comments.map(presentComment),
    tasks: await presentTasks(db, tenantId, await listTasks(db, tenantId, row.id)),
  };
}
