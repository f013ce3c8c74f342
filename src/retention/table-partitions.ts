// PostgreSQL table partitions of the record log, telemetry_records (migration 0030; not the
// JetStream stream partitions of the scale-out mode): one day partition per UTC day of receive
// time, made a week ahead, plus a default partition that catches anything else. Upkeep
// creates the days ahead and drops whole days that every tenant's retention has passed: their
// derived rows (search entries, process/network rows) go first in paced batches, then the day
// partition is detached and dropped in one short transaction. Detaching needs an exclusive lock
// on the whole log (as creating one does), and while it waits for one every insert queues
// behind it: so it waits at most a fifth of a second (lock_timeout), and tries again a few times
// a little later; a day still busy after that is left for the next pass. Rows an open case cites are moved to the
// default partition first; a day holding rows of a tenant under legal hold is never dropped.
import { sql, type Kysely, type Transaction } from 'kysely';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Tables } from '../storage/schema.js';
import { DAY_MS } from './retention-rules.js';
import { citedByOpenCases, purgeFloor } from './purge-store.js';
import { currentSnapshot } from '../telemetry/snapshot-window.js';

export const DAYS_AHEAD = 7;
const DERIVED_BATCH = 5_000;
/** Longest wait for the lock that detaching a day partition takes: inserts queue behind it meanwhile. */
export const DETACH_LOCK_TIMEOUT_MS = 200;
/** Tries per day and pass: the n-th retry comes n × `retryMs` after the last failure. */
export interface DetachRetry {
  attempts: number;
  retryMs: number;
}
const DETACH_RETRY: DetachRetry = { attempts: 8, retryMs: 500 };

export interface TablePartition {
  name: string;
  from: number;
  to: number;
  isDefault: boolean;
}

export interface UpkeepPass {
  now: number;
  /** Each tenant's cutoff: records received before it are expired. */
  cutoffs: Map<number, number>;
  /** Tenants under legal hold. */
  held: Set<number>;
  /** Called after each dropped day with its records per tenant, so a long upkeep shows progress. */
  onDropped?: (counted: Dropped) => Promise<void>;
  /** Called after each batch of derived rows deleted, with how long it took: the caller's pause. */
  pace?: (tookMs: number) => Promise<void>;
}

/** Records dropped, per tenant id. */
export type Dropped = Map<number, number>;

export interface UpkeepResult {
  dropped: Dropped;
  /** Expired days left in place this pass: the lock to detach them stayed busy. */
  busy: string[];
}

export function dayPartitionName(dayStart: number): string {
  return `telemetry_records_p${new Date(dayStart).toISOString().slice(0, 10).replaceAll('-', '')}`;
}

export const utcDayStart = (ms: number): number => Math.floor(ms / DAY_MS) * DAY_MS;

function parseBound(text: string): number {
  const value = text.trim().replace(/^'|'$/g, '');
  if (value === 'MINVALUE') return -Infinity;
  if (value === 'MAXVALUE') return Infinity;
  return Number(value);
}

export async function isPartitioned(db: Kysely<Tables>): Promise<boolean> {
  const row = await sql<{
    relkind: string;
  }>`SELECT relkind FROM pg_class WHERE oid = to_regclass('telemetry_records')`.execute(db);
  return row.rows[0]?.relkind === 'p';
}

export async function listTablePartitions(db: Kysely<Tables>): Promise<TablePartition[]> {
  const rows = await sql<{ name: string; bound: string }>`
    SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
    FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = to_regclass('telemetry_records')`.execute(db);
  return rows.rows
    .map((row) => {
      if (row.bound === 'DEFAULT') return { name: row.name, from: -Infinity, to: -Infinity, isDefault: true };
      const match = /FROM \((.+)\) TO \((.+)\)/.exec(row.bound);
      const [, from, to] = match ?? [];
      if (from === undefined || to === undefined)
        throw new Error(`unexpected bound of partition ${row.name}: ${row.bound}`);
      return { name: row.name, from: parseBound(from), to: parseBound(to), isDefault: false };
    })
    .sort((a, b) => a.from - b.from);
}

/**
 * Creates the day partitions from `from` for `days` days where no partition covers them yet.
 * Rows of such a day already in the default partition (the upkeep did not run for a week, or a
 * clock jumped) move into the new partition in the same transaction.
 */
export async function createDays(
  db: Kysely<Tables>,
  from: number,
  days: number,
  retry: DetachRetry = DETACH_RETRY,
): Promise<{ made: string[]; busy: string[] }> {
  const partitions = await listTablePartitions(db);
  const existing = partitions.filter((partition) => !partition.isDefault);
  const fallback = partitions.find((partition) => partition.isDefault);
  const made: string[] = [];
  const busy: string[] = [];
  for (let day = utcDayStart(from), i = 0; i < days; i++, day += DAY_MS) {
    const end = day + DAY_MS;
    if (existing.some((partition) => partition.from < end && partition.to > day)) continue;
    const name = sql.id(dayPartitionName(day));
    const stray = fallback
      ? await sql`SELECT 1 FROM ${sql.id(fallback.name)} WHERE received_at >= ${day} AND received_at < ${end} LIMIT 1`.execute(
          db,
        )
      : { rows: [] };
    // Creating a partition locks the whole log too, so it waits as briefly as a detach does.
    const created = await withShortLock(db, retry, async (trx) => {
      if (!fallback || stray.rows.length === 0) {
        await sql`CREATE TABLE ${name} PARTITION OF telemetry_records FOR VALUES FROM (${sql.lit(day)}) TO (${sql.lit(end)})`.execute(
          trx,
        );
        return;
      }
      await sql`CREATE TABLE ${name} (LIKE telemetry_records INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`.execute(trx);
      await sql`WITH moved AS (
          DELETE FROM ${sql.id(fallback.name)} WHERE received_at >= ${day} AND received_at < ${end} RETURNING *
        ) INSERT INTO ${name} SELECT * FROM moved`.execute(trx);
      await sql`ALTER TABLE telemetry_records ATTACH PARTITION ${name} FOR VALUES FROM (${sql.lit(day)}) TO (${sql.lit(end)})`.execute(
        trx,
      );
    });
    (created ? made : busy).push(dayPartitionName(day));
  }
  return { made, busy };
}

/** The table partition upkeep a purge pass runs first (PostgreSQL, partitioned log only). */
export function tablePartitionUpkeep(
  db: Kysely<Tables>,
  retry: DetachRetry = DETACH_RETRY,
): (pass: UpkeepPass) => Promise<UpkeepResult> {
  return async (pass) => {
    const result: UpkeepResult = { dropped: new Map(), busy: [] };
    if (!(await isPartitioned(db))) return result;
    // A day ahead left busy now is made by a later pass, days before its first record.
    result.busy.push(...(await createDays(db, pass.now - DAY_MS, DAYS_AHEAD + 2, retry)).busy);
    if (pass.cutoffs.size === 0) return result;
    // A day goes only when it has expired for every tenant; shorter retentions delete by rows.
    const cutoff = Math.min(...pass.cutoffs.values());
    // A record the floor's snapshot does not see may have committed after the floor was worked
    // out, unread; dropping checks for such records under its lock.
    const { seq: floor, committedBy: checked } = await purgeFloor(db, { snapshot: currentSnapshot });
    if (checked === undefined) throw new Error('the purge floor on PostgreSQL comes with its snapshot');
    for (const partition of await listTablePartitions(db)) {
      if (partition.isDefault || partition.to > cutoff) continue;
      const counted = await dropDayPartition(db, partition, pass, { floor, checked }, retry);
      if (counted === 'busy') {
        result.busy.push(partition.name);
        continue;
      }
      for (const [tenantId, count] of counted)
        result.dropped.set(tenantId, (result.dropped.get(tenantId) ?? 0) + count);
      if (counted.size > 0) await pass.onDropped?.(counted);
    }
    return result;
  };
}

/** SQLSTATE 55P03 (lock_not_available): lock_timeout ran out. */
function isLockTimeout(error: unknown): boolean {
  return (error as { code?: unknown }).code === '55P03';
}

/**
 * Runs `change` in a transaction that waits at most DETACH_LOCK_TIMEOUT_MS for each lock, and
 * tries again later while that runs out; false when the lock stayed busy every time.
 */
async function withShortLock(
  db: Kysely<Tables>,
  retry: DetachRetry,
  change: (trx: Transaction<Tables>) => Promise<void>,
): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    try {
      await db.transaction().execute(async (trx) => {
        await sql`SET LOCAL lock_timeout = ${sql.lit(`${DETACH_LOCK_TIMEOUT_MS}ms`)}`.execute(trx);
        await change(trx);
      });
      return true;
    } catch (error) {
      if (!isLockTimeout(error)) throw error;
      if (attempt >= retry.attempts) return false;
    }
    await sleep(attempt * retry.retryMs);
  }
}

/** Thrown inside the detach transaction to undo it: the day gained a record since it was checked. */
class ChangedSinceChecked extends Error {}

/** What a day is checked against: the followers' floor, and the snapshot taken just before it. */
interface DropCheck {
  floor: number;
  checked: string;
}

async function dropDayPartition(
  db: Kysely<Tables>,
  partition: TablePartition,
  pass: UpkeepPass,
  { floor, checked }: DropCheck,
  retry: DetachRetry,
): Promise<Dropped | 'busy'> {
  const table = sql.id(partition.name);
  const tenants = await sql<{ tenant_id: number; records: number; max_seq: number }>`
    SELECT tenant_id, count(*) AS records, max(seq) AS max_seq FROM ${table} GROUP BY tenant_id`.execute(db);
  const counted: Dropped = new Map();
  for (const row of tenants.rows) {
    // Held tenants' records stay; so does anything a follower has not processed yet.
    if (pass.held.has(row.tenant_id) || row.max_seq > floor) return new Map();
    counted.set(row.tenant_id, row.records);
  }
  const cited: number[] = [];
  for (const tenantId of counted.keys()) cited.push(...(await citedByOpenCases(db, tenantId)));
  for (const derived of [
    { table: 'telemetry_fts', column: 'seq' },
    { table: 'endpoint_process_events', column: 'record_seq' },
    { table: 'network_process_events', column: 'record_seq' },
    { table: 'detection_failures', column: 'record_seq' },
  ]) {
    for (let after = 0; ;) {
      const batch = await sql<{ seq: number }>`
        SELECT seq FROM ${table} WHERE seq > ${after} AND NOT (seq = ANY(${cited}::bigint[])) ORDER BY seq LIMIT ${DERIVED_BATCH}`.execute(
        db,
      );
      const last = batch.rows.at(-1);
      if (!last) break;
      after = last.seq;
      const seqs = batch.rows.map((row) => row.seq);
      const started = performance.now();
      await sql`DELETE FROM ${sql.id(derived.table)} WHERE ${sql.id(derived.column)} = ANY(${seqs}::bigint[])`.execute(
        db,
      );
      await pass.pace?.(performance.now() - started);
    }
  }
  const kept = new Map<number, number>();
  let done: boolean;
  try {
    done = await withShortLock(db, retry, async (trx) => {
      kept.clear();
      await sql`ALTER TABLE telemetry_records DETACH PARTITION ${table}`.execute(trx);
      // Under the lock nothing writes to the log. A transaction still running when the day was
      // checked (one importing old records, say) may have committed into it since: its records
      // may be unread by a follower or a held tenant's, so the day waits for a later pass.
      // Both are ranges of the day's (tx_id, seq) index.
      const late = await sql<{ late: boolean }>`SELECT
          EXISTS (SELECT 1 FROM ${table} WHERE tx_id = ANY(ARRAY(SELECT pg_snapshot_xip(${checked}::pg_snapshot))))
          OR EXISTS (SELECT 1 FROM ${table} WHERE tx_id >= pg_snapshot_xmax(${checked}::pg_snapshot)) AS late`.execute(
        trx,
      );
      if (late.rows[0]?.late) throw new ChangedSinceChecked();
      // What an open case cites lands in the default partition (no day partition covers it now).
      const moved =
        await sql`INSERT INTO telemetry_records SELECT * FROM ${table} WHERE seq = ANY(${cited}::bigint[])`.execute(
          trx,
        );
      if (Number(moved.numAffectedRows ?? 0) > 0) {
        const perTenant = await sql<{ tenant_id: number; records: number }>`
        SELECT tenant_id, count(*) AS records FROM ${table} WHERE seq = ANY(${cited}::bigint[]) GROUP BY tenant_id`.execute(
          trx,
        );
        for (const row of perTenant.rows) kept.set(row.tenant_id, row.records);
      }
      await sql`DROP TABLE ${table}`.execute(trx);
    });
  } catch (error) {
    if (error instanceof ChangedSinceChecked) return new Map();
    throw error;
  }
  if (!done) return 'busy';
  // Rows kept because an open case cites them are not counted as dropped.
  for (const [tenantId, records] of kept) counted.set(tenantId, (counted.get(tenantId) ?? 0) - records);
  return counted;
}
