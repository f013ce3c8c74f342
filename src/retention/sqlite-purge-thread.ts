// The SQLite purger's deletes, on a thread of their own with their own connection. Waiting for
// the write lock (the record writer commits all the time) then blocks this thread, never the
// server's event loop, and each batch gives its freed pages back (incremental auto_vacuum).
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
const incremental = (connection.pragma('auto_vacuum', { simple: true }) as number) === 2;

const statements = (count: number) => {
  const list = Array.from({ length: count }, () => '?').join(',');
  return [
    // Contentless FTS5 with contentless_delete=1: an entry is removed by its rowid alone. The
    // tenant is matched so that every statement takes the same parameters.
    connection.prepare(
      `DELETE FROM telemetry_fts WHERE rowid IN (SELECT seq FROM telemetry_records WHERE tenant_id = ? AND seq IN (${list}))`,
    ),
    connection.prepare(`DELETE FROM endpoint_process_events WHERE tenant_id = ? AND record_seq IN (${list})`),
    connection.prepare(`DELETE FROM network_process_events WHERE tenant_id = ? AND record_seq IN (${list})`),
    connection.prepare(`DELETE FROM detection_failures WHERE tenant_id = ? AND record_seq IN (${list})`),
    connection.prepare(`DELETE FROM telemetry_records WHERE tenant_id = ? AND seq IN (${list})`),
  ];
};

let lockedAt = 0;
const purge = connection.transaction((tenantId: number, seqs: number[]): number => {
  lockedAt = performance.now();
  let deleted = 0;
  for (const statement of statements(seqs.length)) deleted = statement.run(tenantId, ...seqs).changes;
  return deleted;
});

port.on('message', (request: PurgeRequest) => {
  try {
    const deleted = request.seqs.length === 0 ? 0 : purge.immediate(request.tenantId, request.seqs);
    const heldMs = request.seqs.length === 0 ? 0 : performance.now() - lockedAt;
    if (incremental) connection.pragma(`incremental_vacuum(${Math.max(64, request.seqs.length)})`);
    port.postMessage({ id: request.id, ok: true, deleted, heldMs } satisfies PurgeResponse);
  } catch (error) {
    port.postMessage({ id: request.id, ok: false, message: (error as Error).message } satisfies PurgeResponse);
  }
});
