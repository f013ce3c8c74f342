// The purger's SQL on the telemetry tables: which expired records of a tenant come next, which
// of them an open case cites, and deleting a batch together with everything derived from it
// (the search index entry, the normalised process/network rows, detection failures). Also the
// chunked usage sweep. Every query names the tenant, except the sweep, which groups by it.
import { sql } from 'kysely';
import type { Db } from '../storage/database.js';
import { unprocessedFloor } from '../telemetry/snapshot-window.js';
import type { RecordPurge } from './purge-port.js';

export interface Candidate {
  seq: number;
  received_at: number;
}

/** Position after which the next batch starts, in the (received_at, seq) index order. */
export interface After {
  receivedAt: number;
  seq: number;
}

/**
 * The sequence every follower has passed, and on PostgreSQL the snapshot it holds for: a record
 * whose transaction was still running when the floor was taken may hold a sequence below it and
 * commit later, unread, so only records that snapshot sees are below the floor.
 */
export interface PurgeFloor {
  seq: number;
  committedBy?: string;
}

export async function purgeFloor(db: Db, purge: Pick<RecordPurge, 'snapshot'>): Promise<PurgeFloor> {
  // Taken first: whatever it sees has committed, so the floor below counts it if it is unread.
  const committedBy = await purge.snapshot?.(db);
  const seq = Math.min(await followerFloor(db), await logEnd(db));
  return committedBy === undefined ? { seq } : { seq, committedBy };
}

/** Up to `limit` of the tenant's records received before `cutoff`, oldest first, past `after`. */
export async function expiredBatch(
  db: Db,
  tenantId: number,
  cutoff: number,
  after: After | undefined,
  floor: PurgeFloor,
  limit: number,
): Promise<Candidate[]> {
  let query = db
    .selectFrom('telemetry_records')
    .select(['seq', 'received_at'])
    .where('tenant_id', '=', tenantId)
    .where('received_at', '<', cutoff)
    .where('seq', '<=', floor.seq);
  const { committedBy } = floor;
  if (committedBy !== undefined)
    query = query.where(sql<boolean>`pg_visible_in_snapshot(tx_id, ${committedBy}::pg_snapshot)`);
  if (after)
    query = query.where((eb) =>
      eb.or([
        eb('received_at', '>', after.receivedAt),
        eb.and([eb('received_at', '=', after.receivedAt), eb('seq', '>', after.seq)]),
      ]),
    );
  return query.orderBy('received_at').orderBy('seq').limit(limit).execute();
}

/** Sequences of the tenant's records that observations in its open cases cite. */
export async function citedByOpenCases(db: Db, tenantId: number): Promise<Set<number>> {
  const rows = await db
    .selectFrom('observations as o')
    .innerJoin('case_observations as co', (join) =>
      join.onRef('co.observation_id', '=', 'o.id').on('co.tenant_id', '=', tenantId),
    )
    .innerJoin('cases as c', (join) => join.onRef('c.id', '=', 'co.case_id').on('c.tenant_id', '=', tenantId))
    .select('o.record_seqs')
    .where('o.tenant_id', '=', tenantId)
    .where('c.status', '!=', 'closed')
    .execute();
  const cited = new Set<number>();
  for (const row of rows) for (const seq of JSON.parse(row.record_seqs) as number[]) cited.add(seq);
  return cited;
}

/** Deletes the tenant's records and what was derived from them; one transaction. */
export async function deleteRecords(trx: Db, purge: RecordPurge, tenantId: number, rows: Candidate[]): Promise<number> {
  if (rows.length === 0) return 0;
  const seqs = rows.map((row) => row.seq);
  await purge.deleteIndexEntries(trx, tenantId, seqs);
  await trx
    .deleteFrom('endpoint_process_events')
    .where('tenant_id', '=', tenantId)
    .where('record_seq', 'in', seqs)
    .execute();
  await trx
    .deleteFrom('network_process_events')
    .where('tenant_id', '=', tenantId)
    .where('record_seq', 'in', seqs)
    .execute();
  await trx
    .deleteFrom('detection_failures')
    .where('tenant_id', '=', tenantId)
    .where('record_seq', 'in', seqs)
    .execute();
  const deleted = await trx
    .deleteFrom('telemetry_records')
    .where('tenant_id', '=', tenantId)
    .where('seq', 'in', seqs)
    .executeTakeFirst();
  return Number(deleted.numDeletedRows);
}

/**
 * The lowest position every follower of the log (search index, detection) has passed: every
 * record at or below it has been processed by all of them. A PostgreSQL snapshot position
 * answers with the lowest sequence it has not processed (less one), or the log's end.
 */
export async function followerFloor(db: Db): Promise<number> {
  const cursors = await db.selectFrom('log_cursors').select(['seq', 'tx_id', 'seen', 'up_to']).execute();
  let floor: number | undefined;
  let end: number | undefined;
  for (const cursor of cursors) {
    let passed: number = cursor.seq;
    if (cursor.seen !== null) {
      const position = {
        seq: cursor.seq,
        txId: cursor.tx_id ?? '0',
        seen: cursor.seen,
        upTo: cursor.up_to ?? undefined,
      };
      passed = (await unprocessedFloor(db, position)) ?? (end ??= await logEnd(db));
    }
    floor = floor === undefined ? passed : Math.min(floor, passed);
  }
  return floor ?? 0;
}

export async function logEnd(db: Db): Promise<number> {
  const row = await db
    .selectFrom('telemetry_records')
    .select((eb) => eb.fn.max<number | null>('seq').as('seq'))
    .executeTakeFirst();
  return row?.seq ?? 0;
}

export async function oldestReceivedAt(db: Db, tenantId: number): Promise<number | null> {
  const row = await db
    .selectFrom('telemetry_records')
    .select('received_at')
    .where('tenant_id', '=', tenantId)
    .orderBy('received_at')
    .limit(1)
    .executeTakeFirst();
  return row?.received_at ?? null;
}

export interface UsageRow {
  tenant_id: number;
  records: number;
  bytes: number;
}

/** Records and their bytes (record and metadata text) per tenant among sequences (from, to]. */
export async function usageChunk(db: Db, from: number, to: number): Promise<UsageRow[]> {
  const rows = await db
    .selectFrom('telemetry_records')
    .select([
      'tenant_id',
      (eb) => eb.fn.countAll().as('records'),
      // sum() is numeric on PostgreSQL: a string there.
      sql<number | string>`sum(length(record) + coalesce(length(meta), 0))`.as('bytes'),
    ])
    .where('seq', '>', from)
    .where('seq', '<=', to)
    .groupBy('tenant_id')
    .execute();
  return rows.map((row) => ({
    tenant_id: row.tenant_id,
    records: Number(row.records as number | string),
    bytes: Number(row.bytes),
  }));
}
