// Grouping: every new observation joins a case. Policy (docs/cases.md):
//   - an observation on a device joins the tenant's open case on that device (merged cases
//     included) whose observations lie within the window (default 24 h) of it; with
//     `--case-grouping device_rule` the case must also be for the same rule;
//   - an observation naming no device joins the open case of the same rule and source within
//     the window;
//   - otherwise it opens a new case (status new).
// Runs inside the transaction that stores the observations (detection's chunk or batch, or an
// external write), so an observation is grouped exactly once; the observables its evidence
// names, and its device's host name, join the case in the same step.
import type { AttackCatalogue } from '../detection/attack.js';
import type { CaseGrouping } from '../config/config.js';
import type { RowLocks } from '../storage/row-locks.js';
import { newId } from '../core/ids.js';
import { deviceKey, ensureDevice, findDevicesByIds } from '../devices/device-store.js';
import { hostKey } from '../devices/device-sightings.js';
import {
  addCaseDevices,
  addCaseObservations,
  addCaseTechniques,
  addHistory,
  caseDeviceIds,
  findOpenCase,
  insertCase,
  lockGroup,
  nextCaseNumber,
  updateCase,
  type CaseRow,
  type Db,
} from './case-store.js';
import {
  addContribution,
  contentsOf,
  deriveFields,
  emptyContents,
  severityFor,
  type CaseContents,
} from './case-derive.js';
import { severityForLevel } from './case-score.js';
import { applyMatchingTemplates } from './work/template-apply.js';
import type { CaseTrigger } from './work/template-service.js';
import type { NewObservation } from '../observations/observation-store.js';
import type { DeviceRow } from '../devices/device-store.js';
import { addEvidenceObservables, type EvidenceObservable } from './case-observable-store.js';
import { normaliseObservable } from '../detection/observable-values.js';

export interface GroupingPolicy {
  windowMs: number;
  grouping: CaseGrouping;
}

export const DEFAULT_GROUPING: GroupingPolicy = { windowMs: 24 * 3_600_000, grouping: 'device' };

export interface GroupingContext {
  db: Db;
  locks: RowLocks;
  policy: GroupingPolicy;
  catalogue: AttackCatalogue;
  now: number;
  /** Device ids already known for `tenant/hostKey` (the chunk's sightings). */
  deviceIds?: ReadonlyMap<string, string>;
}

const systemActor = { type: 'system', id: null, label: 'grouping' };

interface Bucket {
  tenantId: number;
  groupKey: string;
  deviceId: string | null;
  observations: NewObservation[];
}

/** Adds each observation to a case (an existing open one, or a new one); returns the case ids touched. */
export async function groupObservations(
  context: GroupingContext,
  observations: readonly NewObservation[],
): Promise<string[]> {
  const buckets = new Map<string, Bucket>();
  for (const observation of [...observations].sort((a, b) => a.firstTime - b.firstTime)) {
    let deviceId: string | null = null;
    if (observation.deviceHost !== null) {
      const key = hostKey(observation.deviceHost);
      // Detection's devices were upserted from the same events; an external write may name a new one.
      deviceId =
        context.deviceIds?.get(deviceKey(observation.tenantId, key)) ??
        (await ensureDevice(
          context.db,
          observation.tenantId,
          observation.deviceHost,
          key,
          observation.firstTime,
          context.now,
        ));
    }
    const groupKey =
      deviceId === null
        ? `rule:${observation.ruleId}:${observation.source}`
        : context.policy.grouping === 'device_rule'
          ? `device:${deviceId}:rule:${observation.ruleId}`
          : `device:${deviceId}`;
    const id = `${observation.tenantId}\u0000${groupKey}`;
    let bucket = buckets.get(id);
    if (!bucket) buckets.set(id, (bucket = { tenantId: observation.tenantId, groupKey, deviceId, observations: [] }));
    bucket.observations.push(observation);
  }
  const touched: string[] = [];
  for (const bucket of buckets.values()) touched.push(...(await groupBucket(context, bucket)));
  return touched;
}

interface Pending {
  existing: CaseRow | undefined;
  contents: CaseContents;
  added: NewObservation[];
}

async function groupBucket(context: GroupingContext, bucket: Bucket): Promise<string[]> {
  const { db, policy } = context;
  await lockGroup(db, context.locks, bucket.tenantId, bucket.groupKey);
  const touched: string[] = [];
  let pending: Pending | undefined;
  for (const observation of bucket.observations) {
    if (pending && !fits(pending.contents, observation, policy.windowMs)) {
      touched.push(await flush(context, bucket, pending));
      pending = undefined;
    }
    if (!pending) {
      const window = { from: observation.firstTime - policy.windowMs, to: observation.lastTime + policy.windowMs };
      const match =
        bucket.deviceId !== null && policy.grouping === 'device'
          ? { deviceId: bucket.deviceId }
          : { groupKey: bucket.groupKey };
      const existing = await findOpenCase(db, context.locks, bucket.tenantId, match, window);
      pending = {
        existing,
        contents: existing ? contentsOf(existing) : emptyContents(0, observation.firstTime),
        added: [],
      };
    }
    pending.added.push(observation);
    addContribution(pending.contents, { ...observation, count: 1 });
  }
  if (pending) touched.push(await flush(context, bucket, pending));
  return touched;
}

function fits(contents: CaseContents, observation: NewObservation, windowMs: number): boolean {
  return observation.firstTime <= contents.lastTime + windowMs && observation.lastTime >= contents.firstTime - windowMs;
}

/** Writes one case's new observations: the case row, its parts and one history entry. */
async function flush(context: GroupingContext, bucket: Bucket, pending: Pending): Promise<string> {
  const { db, now } = context;
  const { tenantId } = bucket;
  const existing = pending.existing;
  const caseId = existing?.id ?? newId('case');
  const deviceIds = new Set((await caseDeviceIds(db, tenantId, [caseId])).get(caseId) ?? []);
  // A device new to the case brings its host name as an observable.
  const newDevice = bucket.deviceId !== null && !deviceIds.has(bucket.deviceId) ? bucket.deviceId : null;
  if (bucket.deviceId !== null) deviceIds.add(bucket.deviceId);
  const devices = await findDevicesByIds(db, tenantId, [...deviceIds]);
  const observationIds = pending.added.map((observation) => observation.id);
  const moved: Record<string, { from: unknown; to: unknown }> = {};

  if (existing) {
    const derived = deriveFields(pending.contents, devices, JSON.parse(existing.tags) as string[], context.catalogue);
    const severity = severityFor(existing, derived.max_level);
    // What the new observations changed, beside their number, for the history.
    for (const [field, from, to] of [
      ['score', existing.score, derived.score],
      ['severity', existing.severity, severity],
      ['title', existing.title, derived.title],
    ] as const) {
      if (from !== to) moved[field] = { from, to };
    }
    // The case row is locked (findOpenCase, FOR UPDATE on PostgreSQL; SQLite's one writer), so
    // the version read is still current.
    const updated = await updateCase(db, tenantId, caseId, existing.version, { ...derived, severity, updated_at: now });
    if (!updated) throw new Error(`case ${caseId} changed while it was locked for grouping`);
  } else {
    const number = await nextCaseNumber(db, tenantId);
    pending.contents.number = number;
    const derived = deriveFields(pending.contents, devices, [], context.catalogue);
    await insertCase(db, {
      id: caseId,
      tenant_id: tenantId,
      number,
      ...derived,
      severity: severityForLevel(derived.max_level),
      severity_manual: 0,
      status: 'new',
      resolution: null,
      closing_comment: null,
      assignee_id: null,
      group_key: bucket.groupKey,
      tags: '[]',
      merged_into: null,
      version: 1,
      created_at: now,
      updated_at: now,
      closed_at: null,
    });
    await addHistory(db, [
      {
        caseId,
        tenantId,
        at: now,
        actor: systemActor,
        action: 'created',
        changes: { number, group_key: bucket.groupKey },
      },
    ]);
  }
  await addCaseObservations(db, tenantId, caseId, observationIds, now);
  await addCaseDevices(db, tenantId, caseId, [...deviceIds]);
  await addCaseTechniques(db, tenantId, caseId, pending.contents.techniques);
  const observables = evidenceObservables(
    pending.added,
    devices.find((device) => device.id === newDevice),
  );
  await addEvidenceObservables(db, tenantId, caseId, observables, now);
  await addHistory(db, [
    {
      caseId,
      tenantId,
      at: now,
      actor: systemActor,
      action: 'observations_added',
      changes: { count: observationIds.length, observation_ids: observationIds.slice(0, 100), ...moved },
    },
  ]);
  await applyMatchingTemplates(db, tenantId, caseId, triggerOf(pending.added), now);
  return caseId;
}

/** What the observations joining a case may match templates on. */
function triggerOf(observations: readonly NewObservation[]): CaseTrigger {
  return {
    ruleIds: [...new Set(observations.map((observation) => observation.ruleId))],
    techniques: [...new Set(observations.flatMap((observation) => observation.techniques))],
    levels: [...new Set(observations.map((observation) => observation.level))],
    tags: [],
  };
}

/** What the new observations' evidence names, and the host name of a device new to the case. */
function evidenceObservables(added: readonly NewObservation[], device: DeviceRow | undefined): EvidenceObservable[] {
  const items: EvidenceObservable[] = [];
  const host = device && normaliseObservable('host', device.host_name);
  const first = added[0];
  if (host && first) {
    items.push({
      draft: { type: 'host', value: host, tags: [] },
      observationId: first.id,
      firstSeen: first.firstTime,
    });
  }
  for (const observation of added) {
    for (const draft of observation.observables)
      items.push({ draft, observationId: observation.id, firstSeen: observation.firstTime });
  }
  return items;
}
