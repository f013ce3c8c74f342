// Cases as the API shows them, and the changes people make: status (with the workflow and the
// resolution rule), assignee, tags, severity — each checked against the version the caller
// read, recorded in the history, in one transaction. Reading has no side effect.
import type { Kysely } from 'kysely';
import type { Tables } from '../storage/schema.js';
import type { DatabaseKind } from '../storage/database.js';
import type { AttackCatalogue } from '../detection/attack.js';
import type { AuditActor } from '../identity/principal.js';
import { AppError } from '../shared/errors.js';
import { writeTransaction } from '../storage/write-transaction.js';
import { presentDevices } from '../devices/device-service.js';
import { findDevicesByIds } from '../devices/device-store.js';
import { presentObservation } from '../observations/observation-service.js';
import {
  addHistory,
  caseDeviceIds,
  findCase,
  insertComment,
  listComments,
  replaceCaseTags,
  updateCase,
  type CaseRow,
  type CommentRow,
  type Db,
} from './case-store.js';
import { checkTransition, type CaseStatus, type Resolution } from './case-workflow.js';
import { searchText } from './case-derive.js';
import { newId } from '../shared/ids.js';
import { findSummaries } from '../summaries/summary-store.js';
import { basisOf, presentSummary } from '../summaries/summary-view.js';

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
export async function presentCases(db: Db, catalogue: AttackCatalogue, tenantId: number, rows: readonly CaseRow[]) {
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
    .select('ai_summaries_enabled')
    .where('id', '=', tenantId)
    .executeTakeFirst();
  const summariesOn = Number(tenant?.ai_summaries_enabled ?? 1) === 1;
  // Opted out: no summary is shown (seed rule 6), and the case says why.
  const summaries = summariesOn
    ? new Map(
        (
          await findSummaries(
            db,
            tenantId,
            rows.map((row) => row.id),
          )
        ).map((summary) => [summary.case_id, summary]),
      )
    : new Map();
  return rows.map((row) => {
    const caseDevices = (deviceIds.get(row.id) ?? [])
      .map((id) => devices.get(id))
      .filter((device) => device !== undefined);
    const summary = summaries.get(row.id);
    const techniques = JSON.parse(row.techniques) as string[];
    return {
      id: row.id,
      number: Number(row.number),
      title: row.title,
      description: row.description,
      score: Number(row.score),
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
      observation_count: Number(row.observation_count),
      created_at: iso(row.created_at),
      updated_at: iso(row.updated_at),
      first_observation_at: iso(row.first_observation_at),
      last_observation_at: iso(row.last_observation_at),
      closed_at: isoOrNull(row.closed_at),
      merged_into: row.merged_into,
      version: Number(row.version),
      // Only a summary someone generated; reading never generates one.
      summary: summary ? presentSummary(summary, basisOf(row, caseDevices)) : null,
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
export async function getCaseDetail(
  db: Kysely<Tables>,
  catalogue: AttackCatalogue,
  tenantId: number,
  idOrNumber: string,
) {
  const row = await requireCase(db, tenantId, idOrNumber);
  const [view] = await presentCases(db, catalogue, tenantId, [row]);
  const devices = await presentDevices(
    db,
    tenantId,
    await findDevicesByIds(
      db,
      tenantId,
      view!.devices.map((device) => device.id),
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
  return {
    ...view!,
    devices,
    observations: observations.map((observation) => presentObservation(observation, catalogue)),
    comments: comments.map(presentComment),
  };
}

export interface CaseChanges {
  status?: CaseStatus;
  resolution?: Resolution;
  closing_comment?: string;
  assignee?: string | null;
  tags?: string[];
  severity?: string;
}

/** Applies one case's changes inside `trx`: checks, writes, history. Returns the new row. */
export async function applyCaseChanges(
  trx: Db,
  tenantId: number,
  idOrNumber: string,
  version: number,
  changes: CaseChanges,
  actor: AuditActor,
  now: number,
): Promise<CaseRow> {
  const row = await requireCase(trx, tenantId, idOrNumber);
  if (Number(row.version) !== version) {
    throw new AppError(
      'version_conflict',
      `case ${row.number} is at version ${row.version}, not ${version}: read it again and reapply your change`,
      {
        extensions: { field: 'version', current_version: Number(row.version) },
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
  if (set.tags !== undefined) {
    const hosts = (
      await findDevicesByIds(trx, tenantId, (await caseDeviceIds(trx, tenantId, [row.id])).get(row.id) ?? [])
    ).map((device) => device.host_name);
    set.search_text = searchText(Number(row.number), row.title, row.description, hosts, tags);
  }
  if (!(await updateCase(trx, tenantId, row.id, Number(row.version), { ...set, updated_at: now }))) {
    throw new AppError('version_conflict', `case ${row.number} changed while it was being updated; read it again`, {
      extensions: { field: 'version' },
    });
  }
  await addHistory(trx, [{ caseId: row.id, tenantId, at: now, actor, action: 'updated', changes: diff }]);
  if (changes.closing_comment !== undefined && diff.closing_comment) {
    await insertComment(trx, newComment(row.id, tenantId, changes.closing_comment, actor, now));
  }
  return { ...row, ...set, updated_at: now, version: Number(row.version) + 1 };
}

export async function patchCase(
  db: Kysely<Tables>,
  kind: DatabaseKind,
  catalogue: AttackCatalogue,
  tenantId: number,
  idOrNumber: string,
  version: number,
  changes: CaseChanges,
  actor: AuditActor,
  now?: number,
): Promise<CaseView> {
  // Stamped once the write lock is held, so updated_at follows commit order (updated_after sync).
  const row = await writeTransaction(db, kind, (trx) =>
    applyCaseChanges(trx, tenantId, idOrNumber, version, changes, actor, now ?? Date.now()),
  );
  const [view] = await presentCases(db, catalogue, tenantId, [row]);
  return view!;
}

/** Up to 100 cases, each in its own transaction, each answered as a single PATCH would be. */
export async function bulkPatchCases(
  db: Kysely<Tables>,
  kind: DatabaseKind,
  catalogue: AttackCatalogue,
  tenantId: number,
  items: readonly ({ id: string; version: number } & CaseChanges)[],
  actor: AuditActor,
  now?: number,
) {
  const results = [];
  for (const { id, version, ...changes } of items) {
    try {
      results.push({
        id,
        status: 200,
        case: await patchCase(db, kind, catalogue, tenantId, id, version, changes, actor, now),
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
