// What one detection chunk changes, in one transaction: the log position (first: it takes
// SQLite's write lock and fences out a second consumer), the devices the chunk's events name,
// the normalised process and network rows, the logsources the events produced, the records
// detection could not evaluate, the counts of records no shape recognised, the new observations
// and their cases, and the correlation state. A crash before the commit redoes the chunk; after
// it, the chunk is never read again; observations are also deduplicated by key. A scale-out
// worker stores the same inside each batch's apply (stream-partition-detection.ts).
import type { Kysely, Transaction } from 'kysely';
import type { Tables } from '../storage/schema.js';
import type { RowLocks } from '../storage/row-locks.js';
import type { RecordLogReader } from '../record-log/record-log.js';
import { insertNetworkEvents, insertProcessEvents } from '../telemetry/process-event-store.js';
import type { GeoIpSource } from '../devices/geoip.js';
import { deviceKey, upsertSightings } from '../devices/device-store.js';
import { hostKey } from '../devices/device-sightings.js';
import type { AttackCatalogue } from '../detection/attack.js';
import { DETECTION_CURSOR, type CommitDetection, type DetectionCommit } from '../detection/detection-loop.js';
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

export function detectionCommitter(db: Kysely<Tables>, log: RecordLogReader, upkeep: CaseUpkeep): CommitDetection {
  // Read-write: on SQLite the write lock is taken at BEGIN, so the chunk waits its turn behind
  // the record writer instead of failing because a commit landed after its first read.
  return (input) =>
    db
      .transaction()
      .setAccessMode('read write')
      .execute(async (trx) => {
        await log.acknowledge(trx, DETECTION_CURSOR, input.from, input.to);
        return storeDetection(trx, upkeep, input);
      });
}

/**
 * Stores a chunk's output inside the caller's transaction (the embedded detection chunk's, or a
 * scale-out worker's batch apply); returns how many observations were new.
 */
export async function storeDetection(
  trx: Transaction<Tables>,
  upkeep: CaseUpkeep,
  input: Pick<DetectionCommit, 'output' | 'correlationChanges' | 'now'>,
): Promise<number> {
  const { processRows, networkRows, observations, sightings, failures, unrecognised } = input.output;
  // Cases and devices are stamped now that the write lock is held (the chunk's `now` was
  // taken before it was read), so a case's updated_at follows commit order for syncs.
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
