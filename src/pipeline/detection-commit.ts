// What one batch's detection changes, inside the transaction that moves the log position past
// the batch (detection-consumer.ts): the devices the batch's events name, the normalised process
// and network rows, the logsources the events produced, the records detection could not evaluate,
// the counts of records no shape recognised, the new observations and their cases, and the
// correlation state. A crash before the commit redoes the batch; after it, the batch is never
// applied again; observations are also deduplicated by key.
import type { Transaction } from 'kysely';
import type { Tables } from '../storage/schema.js';
import type { RowLocks } from '../storage/row-locks.js';
import { insertNetworkEvents, insertProcessEvents } from '../telemetry/process-event-store.js';
import type { GeoIpSource } from '../devices/geoip.js';
import { deviceKey, upsertSightings } from '../devices/device-store.js';
import { hostKey } from '../devices/device-sightings.js';
import type { AttackCatalogue } from '../detection/attack.js';
import type { DetectionOutput } from '../detection/detection-processor.js';
import { recordDetectionFailures, saveCorrelationState } from '../detection/detection-store.js';
import { upsertLogsourceSightings } from '../detection/logsource-store.js';
import { insertObservations } from '../observations/observation-store.js';
import { addUnrecognised } from '../telemetry/unrecognised/unrecognised-store.js';
import { groupObservations, type GroupingPolicy } from '../cases/case-grouping.js';

/** What the commit needs to keep devices and cases up to date with the chunk. */
export interface CaseUpkeep {
  locks: RowLocks;
  policy: GroupingPolicy;
  catalogue: AttackCatalogue;
  geo: GeoIpSource;
}

/** A processed batch, ready to store. */
export interface DetectionCommit {
  output: DetectionOutput;
  correlationChanges: { key: string; value: string | null }[];
  /** When the batch was processed, epoch ms. */
  now: number;
}

/**
 * Stores a batch's output inside the caller's transaction (the detection thread's chunk, or a
 * scale-out worker's batch apply); returns how many observations were new.
 */
export async function storeDetection(
  trx: Transaction<Tables>,
  upkeep: CaseUpkeep,
  input: DetectionCommit,
): Promise<number> {
  const { processRows, networkRows, observations, sightings, failures, unrecognised } = input.output;
  // Cases and devices are stamped now that the write lock is held (the batch's `now` may have
  // been taken before it), so a case's updated_at follows commit order for syncs.
  const stamp = Math.max(input.now, Date.now());
  // Devices first: the normalised rows and the observations' cases refer to them.
  const deviceIds = await upsertSightings(trx, sightings, upkeep.geo, stamp);
  const deviceOf = (row: { tenantId: number; host: string | null }) =>
    row.host === null ? null : (deviceIds.get(deviceKey(row.tenantId, hostKey(row.host))) ?? null);
  await insertProcessEvents(trx, processRows, deviceOf);
  await insertNetworkEvents(trx, networkRows, deviceOf);
  await recordDetectionFailures(trx, failures, input.now);
  await addUnrecognised(trx, unrecognised ?? []);
  await upsertLogsourceSightings(trx, input.output.logsources);
  const created = await insertObservations(trx, observations, input.now, null);
  await groupObservations(
    { db: trx, locks: upkeep.locks, policy: upkeep.policy, catalogue: upkeep.catalogue, now: stamp, deviceIds },
    created,
  );
  await saveCorrelationState(trx, input.correlationChanges, input.now);
  return created.length;
}
