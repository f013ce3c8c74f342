// The SQLite purger's deletes, on a thread of their own with their own connection. Waiting for
// the write lock (the record writer commits all the time) then blocks this thread, never the
// server's event loop, and each batch gives its freed pages back (incremental auto_vacuum).
// Every statement finds its rows by sequence (`+tenant_id` keeps the tenant a filter, not the
// index: on the tenant's index a batch would scan all of the tenant's rows, so each batch of a
// large backlog cost tens of milliseconds of write lock). Commits skip the fsync (synchronous =
// NORMAL, as the search indexer's chunks do): a purge lost in a crash is simply done again, and
// the record writer's next commit makes it durable anyway. Deleting a search index entry only
// writes a tombstone (the index does not merge on deletes, migration 0041); `reclaim` requests
// then rewrite the parts of the index holding many of them a few pages at a time, and give the
// freed pages back (search-merging.ts). Each answer says whether another
// connection committed since this thread's last write (SQLite's data_version): the purger
// pauses longer when someone else is writing.
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { configureSqliteConnection } from '../database.js';
import { reclaimStep } from './search-merging.js';

export type PurgeRequest =
  | { id: number; type: 'delete'; tenantId: number; seqs: number[] }
  /** One step of search index merging: about `pages` pages written. */
  | { id: number; type: 'reclaim'; pages: number };

export type PurgeResponse =
  | {
      id: number;
      ok: true;
      /** Records deleted; for a reclaim step, 1 while some of the index is still to be reclaimed, else 0. */
      deleted: number;
      /** Time the write lock was held, not waited for. */
      heldMs: number;
      /** Whether another connection committed since this thread's previous write. */
      contended: boolean;
    }
  | { id: number; ok: false; message: string };

const port = parentPort;
if (!port) throw new Error('the purge thread must run as a worker thread');
const connection = new SQLite((workerData as { path: string }).path);
configureSqliteConnection(connection);
connection.pragma('synchronous = NORMAL');
const incremental = (connection.pragma('auto_vacuum', { simple: true }) as number) === 2;

type Statements = SQLite.Statement[];
/** Per batch size: a long purge prepares its statements once. */
const prepared = new Map<number, Statements>();

const statements = (count: number): Statements => {
  const cached = prepared.get(count);
  if (cached) return cached;
  const list = Array.from({ length: count }, () => '?').join(',');
  const made = [
    // Contentless FTS5 with contentless_delete=1: an entry is removed by its rowid alone. The
    // tenant is matched so that every statement takes the same parameters.
    connection.prepare(
      `DELETE FROM telemetry_fts WHERE rowid IN (SELECT seq FROM telemetry_records WHERE +tenant_id = ? AND seq IN (${list}))`,
    ),
    connection.prepare(`DELETE FROM endpoint_process_events WHERE +tenant_id = ? AND record_seq IN (${list})`),
    connection.prepare(`DELETE FROM network_process_events WHERE +tenant_id = ? AND record_seq IN (${list})`),
    connection.prepare(`DELETE FROM detection_failures WHERE +tenant_id = ? AND record_seq IN (${list})`),
    connection.prepare(`DELETE FROM telemetry_records WHERE +tenant_id = ? AND seq IN (${list})`),
  ];
  // Odd sizes (a tenant's last batch) are not worth keeping.
  if (prepared.size < 8) prepared.set(count, made);
  return made;
};

/**
 * A commit by someone else counts as contention only if it came within this long of our previous
 * write: the pause between two batches is far shorter, and the first batch of a pass (after an
 * idle hour, or the records a test has just written) would otherwise be paced as though ingest
 * were running because of commits made long before.
 */
const RECENT_MS = 2_000;
let lockedAt = Number.NEGATIVE_INFINITY;
const dataVersion = () => connection.pragma('data_version', { simple: true }) as number;
let seenVersion = dataVersion();
let contended = false;
/** Inside the write transaction: nobody else commits until it ends, so the version stays ours. */
const locked = () => {
  const now = performance.now();
  const version = dataVersion();
  contended = version !== seenVersion && now - lockedAt < RECENT_MS;
  seenVersion = version;
  lockedAt = now;
};
// The freed pages go back in the same transaction: one write lock (and its time counted in
// heldMs, which paces the purger) rather than a second one for the vacuum.
const purge = connection.transaction((tenantId: number, seqs: number[]): number => {
  locked();
  let deleted = 0;
  for (const statement of statements(seqs.length)) deleted = statement.run(tenantId, ...seqs).changes;
  if (incremental) connection.pragma(`incremental_vacuum(${Math.max(64, seqs.length)})`);
  return deleted;
});

/** One step of the search index's reclaim (search-merging.ts); whether there is more. */
const reclaim = connection.transaction((pages: number): number => {
  locked();
  const more = reclaimStep(connection, pages);
  if (incremental) connection.pragma(`incremental_vacuum(${pages})`);
  return more ? 1 : 0;
});

port.on('message', (request: PurgeRequest) => {
  try {
    let deleted = 0;
    let heldMs = 0;
    contended = false;
    if (request.type === 'reclaim') {
      deleted = reclaim.immediate(request.pages);
      heldMs = performance.now() - lockedAt;
    } else if (request.seqs.length > 0) {
      deleted = purge.immediate(request.tenantId, request.seqs);
      heldMs = performance.now() - lockedAt;
    }
    port.postMessage({ id: request.id, ok: true, deleted, heldMs, contended } satisfies PurgeResponse);
  } catch (error) {
    port.postMessage({ id: request.id, ok: false, message: (error as Error).message } satisfies PurgeResponse);
  }
});
