// The SQLite purger's deletes, on a thread of their own with their own connection. Waiting for
// the write lock (the record writer commits all the time) then blocks this thread, never the
// server's event loop, and each batch gives its freed pages back (incremental auto_vacuum).
// Every statement finds its rows by sequence (`+tenant_id` keeps the tenant a filter, not the
// index: on the tenant's index a batch would scan all of the tenant's rows, so each batch of a
// large backlog cost tens of milliseconds of write lock). Commits skip the fsync (synchronous =
// NORMAL, as the search indexer's chunks do): a purge lost in a crash is simply done again, and
// the record writer's next commit makes it durable anyway.
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { configureSqliteConnection } from '../storage/database.js';

export interface PurgeRequest {
  id: number;
  tenantId: number;
  seqs: number[];
}

export type PurgeResponse =
  | { id: number; ok: true; deleted: number; /** Time the write lock was held, not waited for. */ heldMs: number }
  | { id: number; ok: false; message: string };

const port = parentPort;
if (!port) throw new Error('sqlite-purge-thread must run as a worker thread');
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
  if (prepared.size < 4) prepared.set(count, made);
  return made;
};

let lockedAt = 0;
// The freed pages go back in the same transaction: one write lock (and its time counted in
// heldMs, which paces the purger) rather than a second one for the vacuum.
const purge = connection.transaction((tenantId: number, seqs: number[]): number => {
  lockedAt = performance.now();
  let deleted = 0;
  for (const statement of statements(seqs.length)) deleted = statement.run(tenantId, ...seqs).changes;
  if (incremental) connection.pragma(`incremental_vacuum(${Math.max(64, seqs.length)})`);
  return deleted;
});

port.on('message', (request: PurgeRequest) => {
  try {
    const deleted = request.seqs.length === 0 ? 0 : purge.immediate(request.tenantId, request.seqs);
    const heldMs = request.seqs.length === 0 ? 0 : performance.now() - lockedAt;
    port.postMessage({ id: request.id, ok: true, deleted, heldMs } satisfies PurgeResponse);
  } catch (error) {
    port.postMessage({ id: request.id, ok: false, message: (error as Error).message } satisfies PurgeResponse);
  }
});
