// SQL of the scale-out record log's bookkeeping (tables log_partitions and log_workers): the
// stream partition positions with their lease epochs, the worker heartbeats, and the session
// advisory locks that hold a stream partition's lease. Plain pg: session advisory locks live on one connection.
// Applying a batch (the position's fence and move) is stream-partition-apply.ts.
import type pg from 'pg';

/** The advisory lock class of a stream: every lock of one stream shares it. */
export function lockClass(stream: string, schema: string): number {
  let hash = 0x811c9dc5;
  for (const char of `${schema}/${stream}`) {
    hash ^= char.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash | 0;
}

/** The maintenance lease: held by the one worker that moves the search index cursor (detection runs per stream partition). */
export const MAINTENANCE_LOCK = -1;

export async function tryLock(client: pg.ClientBase, lock: number, key: number): Promise<boolean> {
  const result = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [lock, key]);
  return result.rows[0]?.ok === true;
}

/**
 * Makes the lease session end once its worker falls silent for `leaseMs`: PostgreSQL closes a
 * session idle that long (idle_session_timeout, PostgreSQL 14 and later), and its advisory locks
 * go with it, so the leases of a worker that is paused or hung pass to the others as those of
 * one that died. False when the server has no such setting: the leases then last as long as
 * the connection.
 */
export async function expireWhenSilent(client: pg.ClientBase, leaseMs: number): Promise<boolean> {
  try {
    await client.query(`SELECT set_config('idle_session_timeout', $1, false)`, [String(leaseMs)]);
    return true;
  } catch (error) {
    // undefined_object: an older server, without the setting.
    if ((error as { code?: unknown }).code === '42704') return false;
    throw error;
  }
}

export async function unlock(client: pg.ClientBase, lock: number, key: number): Promise<void> {
  await client.query('SELECT pg_advisory_unlock($1, $2)', [lock, key]);
}

/** A new owner raises the epoch (fencing the former one) and learns where to resume. */
export async function claimStreamPartition(
  pool: pg.Pool,
  stream: string,
  partition: number,
  owner: string,
  now: number,
): Promise<{ appliedSeq: number; epoch: number }> {
  const result = await pool.query<{ applied_seq: string; owner_epoch: string }>(
    `INSERT INTO log_partitions (stream, partition, applied_seq, owner_epoch, owner, updated_at)
     VALUES ($1, $2, 0, 1, $3, $4)
     ON CONFLICT (stream, partition) DO UPDATE
       SET owner_epoch = log_partitions.owner_epoch + 1, owner = EXCLUDED.owner, updated_at = EXCLUDED.updated_at
     RETURNING applied_seq, owner_epoch`,
    [stream, partition, owner, now],
  );
  const row = result.rows[0];
  if (!row) throw new Error('claiming a stream partition returned no row');
  return { appliedSeq: Number(row.applied_seq), epoch: Number(row.owner_epoch) };
}

/** Records this worker as alive; returns how many workers are (seen within `aliveMs`). */
export async function heartbeat(
  pool: pg.Pool,
  stream: string,
  id: string,
  now: number,
  aliveMs: number,
): Promise<number> {
  await pool.query(
    `INSERT INTO log_workers (stream, id, seen_at) VALUES ($1, $2, $3)
     ON CONFLICT (stream, id) DO UPDATE SET seen_at = EXCLUDED.seen_at`,
    [stream, id, now],
  );
  await pool.query('DELETE FROM log_workers WHERE stream = $1 AND seen_at < $2', [stream, now - 6 * aliveMs]);
  const result = await pool.query<{ n: string }>(
    'SELECT count(*) AS n FROM log_workers WHERE stream = $1 AND seen_at >= $2',
    [stream, now - aliveMs],
  );
  return Math.max(1, Number(result.rows[0]?.n ?? 1));
}

export async function leaveWorkers(pool: pg.Pool, stream: string, id: string): Promise<void> {
  await pool.query('DELETE FROM log_workers WHERE stream = $1 AND id = $2', [stream, id]);
}

/** Per stream partition, the last applied stream sequence (for /metrics). */
export async function appliedPositions(pool: pg.Pool, stream: string): Promise<Map<number, number>> {
  const result = await pool.query<{ partition: number; applied_seq: string }>(
    'SELECT partition, applied_seq FROM log_partitions WHERE stream = $1',
    [stream],
  );
  return new Map(result.rows.map((row) => [row.partition, Number(row.applied_seq)]));
}
