// Commits one processed chunk: the normalised rows, the observations, the correlation state and
// the follower's new position, in one transaction. A crash before the commit redoes the chunk;
// after it, the chunk is never seen again; observations are also deduplicated by key, so even
// a replay by a second follower cannot double one.
import type { Kysely, Transaction } from 'kysely';
import type { Tables } from '../storage/schema.js';
import { newId } from '../shared/ids.js';
import type { DetectionOutput, NetworkRow, ObservationDraft, ProcessRow } from './detection-processor.js';
import type { DatabaseKind } from '../storage/database.js';
import type { AttackCatalogue } from './attack.js';
import type { GeoIpSource } from '../devices/geoip.js';
import { deviceKey, upsertSightings } from '../devices/device-store.js';
import { hostKey } from '../devices/device-sightings.js';
import { groupObservations, type GroupableObservation, type GroupingPolicy } from '../cases/case-grouping.js';
import { DETECTION_CURSOR, type LogPosition } from './record-follower.js';

/** Another follower moved the cursor first: this chunk's work is discarded and redone from there. */
export class CursorMoved extends Error {
  override name = 'CursorMoved';
}

/** Rows per INSERT statement: well under SQLite's and PostgreSQL's bound-parameter limits. */
const ROWS_PER_STATEMENT = 200;

/** What the commit needs to keep devices and cases up to date with the chunk. */
export interface CaseUpkeep {
  kind: DatabaseKind;
  policy: GroupingPolicy;
  catalogue: AttackCatalogue;
  geo: GeoIpSource;
}

export interface CommitInput {
  from: LogPosition;
  to: LogPosition;
  output: DetectionOutput;
  correlationChanges: { key: string; value: string | null }[];
  now: number;
}

/** Bounded so a pathological error cannot bloat the table. */
const MAX_ERROR_LENGTH = 1_000;

function failureMessage(error: unknown): string {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return message.slice(0, MAX_ERROR_LENGTH);
}

/** Returns how many observations were new (not already stored under their dedupe key). */
export async function commitDetection(db: Kysely<Tables>, input: CommitInput, upkeep: CaseUpkeep): Promise<number> {
  return db.transaction().execute(async (trx) => {
    // The cursor moves first: on SQLite this takes the write lock before anything is read in the
    // transaction, and on both it fails the chunk if another follower got there first.
    const moved = await trx
      .updateTable('log_cursors')
      .set({ seq: input.to.seq, tx_id: input.to.txId })
      .where('name', '=', DETECTION_CURSOR)
      .where('seq', '=', input.from.seq)
      .where('tx_id', '=', input.from.txId)
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) throw new CursorMoved('the detection cursor moved under this worker');

    const { processRows, networkRows, observations } = input.output;
    // Cases and devices are stamped now that the write lock is held (the chunk's `now` was taken
    // before it was read), so a case's updated_at follows commit order for updated_after syncs.
    const stamp = Math.max(input.now, Date.now());
    // Devices first: the normalised rows and the observations' cases refer to them.
    const deviceIds = await upsertSightings(trx, input.output.sightings, upkeep.geo, stamp);
    const deviceOf = (row: { tenantId: number; host: string | null }) =>
      row.host === null ? null : (deviceIds.get(deviceKey(row.tenantId, hostKey(row.host))) ?? null);
    // The columns both normalised tables share.
    const commonColumns = (row: ProcessRow | NetworkRow) => ({
      tenant_id: row.tenantId,
      device_id: deviceOf(row),
      record_seq: row.recordSeq,
      event_time: row.time,
      host: row.host,
      endpoint_id: row.endpoint_id,
      user_name: row.user,
      process_name: row.process_name,
      pid: row.pid,
      executable_path: row.executable_path,
      source_format: row.source_format,
    });
    for (const chunk of chunks(processRows)) {
      await trx
        .insertInto('endpoint_process_events')
        .values(
          chunk.map((row) => ({
            ...commonColumns(row),
            parent_process_name: row.parent_process_name,
            parent_pid: row.parent_pid,
            parent_executable_path: row.parent_executable_path,
            command_line: row.command_line,
            parent_command_line: row.parent_command_line,
          })),
        )
        .onConflict((oc) => oc.column('record_seq').doNothing())
        .execute();
    }
    for (const chunk of chunks(networkRows)) {
      await trx
        .insertInto('network_process_events')
        .values(
          chunk.map((row) => ({
            ...commonColumns(row),
            source_ip: row.source_ip,
            source_port: row.source_port,
            destination_ip: row.destination_ip,
            destination_port: row.destination_port,
            destination_hostname: row.destination_hostname,
            protocol: row.protocol,
            direction: row.direction,
          })),
        )
        .onConflict((oc) => oc.column('record_seq').doNothing())
        .execute();
    }
    for (const chunk of chunks(input.output.failures)) {
      await trx
        .insertInto('detection_failures')
        .values(
          chunk.map((failure) => ({
            record_seq: failure.seq,
            tenant_id: failure.tenantId,
            error: failureMessage(failure.error),
            failed_at: input.now,
          })),
        )
        .onConflict((oc) => oc.column('record_seq').doNothing())
        .execute();
    }
    const created = await insertObservations(trx, observations, input.now, null);
    await groupObservations(
      { db: trx, kind: upkeep.kind, policy: upkeep.policy, catalogue: upkeep.catalogue, now: stamp, deviceIds },
      created,
    );
    await saveCorrelationState(trx, input.correlationChanges, input.now);
    return created.length;
  });
}

/** Inserts observations, skipping any whose dedupe key the tenant already has; returns the new ones. */
export async function insertObservations(
  db: Kysely<Tables> | Transaction<Tables>,
  observations: readonly ObservationDraft[],
  now: number,
  createdBy: string | null,
): Promise<GroupableObservation[]> {
  const created: GroupableObservation[] = [];
  for (const chunk of chunks(observations)) {
    const rows = await db
      .insertInto('observations')
      .values(
        chunk.map((draft) => ({
          id: newId('obs'),
          tenant_id: draft.tenantId,
          dedupe_key: draft.dedupeKey,
          source: draft.source,
          rule_id: draft.ruleId,
          rule_title: draft.ruleTitle,
          rule_author: draft.ruleAuthor,
          rule_type: draft.ruleType,
          level: draft.level,
          techniques: JSON.stringify(draft.techniques),
          tactics: JSON.stringify(draft.tactics),
          tags: JSON.stringify(draft.tags),
          host: draft.host,
          first_time: draft.firstTime,
          last_time: draft.lastTime,
          record_seqs: JSON.stringify(draft.recordSeqs),
          evidence: JSON.stringify({
            records: draft.evidence,
            ...(draft.correlation ? { correlation: draft.correlation } : {}),
          }),
          created_at: now,
          created_by: createdBy,
        })),
      )
      .onConflict((oc) => oc.columns(['tenant_id', 'dedupe_key']).doNothing())
      .returning(['id', 'tenant_id', 'dedupe_key'])
      .execute();
    const drafts = new Map(chunk.map((draft) => [`${draft.tenantId}\u0000${draft.dedupeKey}`, draft]));
    for (const row of rows) {
      const draft = drafts.get(`${row.tenant_id}\u0000${row.dedupe_key}`)!;
      created.push({
        id: row.id,
        tenantId: draft.tenantId,
        deviceHost: draft.deviceHost,
        source: draft.source,
        ruleId: draft.ruleId,
        ruleTitle: draft.ruleTitle,
        level: draft.level,
        techniques: draft.techniques,
        tactics: draft.tactics,
        firstTime: draft.firstTime,
        lastTime: draft.lastTime,
      });
    }
  }
  return created;
}

async function saveCorrelationState(
  trx: Transaction<Tables>,
  changes: readonly { key: string; value: string | null }[],
  now: number,
): Promise<void> {
  const deleted = changes.filter((change) => change.value === null).map((change) => change.key);
  for (const keys of chunks(deleted)) await trx.deleteFrom('correlation_state').where('key', 'in', keys).execute();
  const upserts = changes.filter((change): change is { key: string; value: string } => change.value !== null);
  for (const chunk of chunks(upserts)) {
    await trx
      .insertInto('correlation_state')
      .values(chunk.map((change) => ({ key: change.key, value: change.value, updated_at: now })))
      .onConflict((oc) =>
        oc.column('key').doUpdateSet({
          value: (eb) => eb.ref('excluded.value'),
          updated_at: (eb) => eb.ref('excluded.updated_at'),
        }),
      )
      .execute();
  }
}

export async function loadCorrelationState(db: Kysely<Tables>): Promise<{ key: string; value: string }[]> {
  return db.selectFrom('correlation_state').select(['key', 'value']).orderBy('key').execute();
}

function* chunks<T>(items: readonly T[]): Generator<T[]> {
  for (let i = 0; i < items.length; i += ROWS_PER_STATEMENT) yield items.slice(i, i + ROWS_PER_STATEMENT);
}
