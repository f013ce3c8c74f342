// The SQLite record-log writer, on its own thread: it owns one connection (WAL,
// synchronous=FULL) and commits each group of batches in one transaction. The main thread
// parses while this one waits on fsync, and a long commit never blocks the event loop.
// Between commits it runs the search indexer one chunk at a time, so indexing never delays a
// 201 by more than one chunk and never starves under constant load. A server's text search asks
// it to catch the index up (read-your-writes) rather than indexing on the event loop.
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { configureSqliteConnection } from '../storage/database.js';
import type { RecordBatch } from './record-log.js';
import { createSqliteSearchIndexer } from '../telemetry/sqlite-search-indexer.js';

export interface WriteRequest {
  id: number;
  batches: RecordBatch[];
}

/** Answered once everything in the log when it arrived is indexed. */
export interface CatchUpRequest {
  id: number;
  catchUp: true;
}

/** The answer to a write or a catch-up. */
export type WriteResponse =
  | { id: number; ok: true; /** Writes: the sequence of the last record written. */ seq?: number }
  | { id: number; ok: false; message: string; code?: string };

/** Reported when background indexing fails; it is retried after a pause. */
export interface IndexFailure {
  indexError: string;
  /** SQLite's result code, so the main thread can tell a full disk from other failures. */
  code?: string;
  retryInMs: number;
}

const INDEX_CHUNK = 2_000;
/**
 * Past this many unindexed records the writer indexes before it takes more writes: commits
 * slow down, the queue fills and senders get 503 (back-pressure), instead of search falling
 * behind without bound and a searcher having to index the whole backlog itself.
 */
const MAX_INDEX_LAG = 100_000;
/** After a failed indexing chunk the indexer waits this long, doubling per failure in a row. */
const INDEX_RETRY_MS = 1_000;
const MAX_INDEX_RETRY_MS = 60_000;
let indexFailuresInARow = 0;
/** While backing off, writes do not bring indexing forward (they would retry at the write rate). */
let retryNotBefore = 0;

function workerPort(): MessagePort {
  if (!parentPort) throw new Error('sqlite-writer-thread must run as a worker thread');
  return parentPort;
}
const port = workerPort();

const connection = new SQLite((workerData as { path: string }).path);
configureSqliteConnection(connection);

const insertRecord = connection.prepare(
  'INSERT INTO telemetry_records (tenant_id, received_at, event_time, record, meta) VALUES (?, ?, ?, ?, ?)',
);

const writeAll = connection.transaction((batches: RecordBatch[]): number => {
  let last = 0;
  for (const batch of batches) {
    const { tenantId, receivedAt, records, eventTimes, metas } = batch;
    for (const [i, record] of records.entries()) {
      // No event time of its own (NaN): the receive time stands in.
      const eventTime = eventTimes[i] ?? Number.NaN;
      last = Number(
        insertRecord.run(
          tenantId,
          receivedAt,
          Number.isNaN(eventTime) ? receivedAt : eventTime,
          record,
          metas[i] ?? null,
        ).lastInsertRowid,
      );
    }
  }
  return last;
});

// `transaction()` uses a deferred BEGIN; take the write lock up front so a busy database waits
// in busy_timeout instead of failing half-way.
const writeImmediate = (batches: RecordBatch[]) => writeAll.immediate(batches);

const indexer = createSqliteSearchIndexer(connection);
let indexingScheduled = false;
let closed = false;
/** Catch-ups waiting for the index to reach the log end each saw, in arrival order. */
const catchUps: { id: number; upTo: number }[] = [];

/**
 * One chunk of indexing. The index can be rebuilt from the log, so its chunks need no fsync of
 * their own: WAL with synchronous=NORMAL keeps chunk and cursor consistent, and the next record
 * commit (FULL) makes them durable too. Record commits themselves stay FULL.
 */
function indexChunk(): number {
  connection.pragma('synchronous = NORMAL');
  try {
    return indexer.indexChunk(INDEX_CHUNK);
  } finally {
    connection.pragma('synchronous = FULL');
  }
}

function scheduleIndexing(requested = 0): void {
  if (indexingScheduled || closed) return;
  indexingScheduled = true;
  const step = () => {
    indexingScheduled = false;
    if (closed) return;
    try {
      const indexed = indexChunk();
      indexFailuresInARow = 0;
      retryNotBefore = 0;
      if (indexed === INDEX_CHUNK) scheduleIndexing();
      answerCatchUps();
    } catch (error) {
      reportIndexError(error);
    }
  };
  const delay = Math.max(requested, retryNotBefore - Date.now());
  if (delay > 0) setTimeout(step, delay);
  else setImmediate(step);
}

function reportIndexError(error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown }).code;
  const retryInMs = Math.min(MAX_INDEX_RETRY_MS, INDEX_RETRY_MS * 2 ** indexFailuresInARow);
  indexFailuresInARow++;
  retryNotBefore = Date.now() + retryInMs;
  port.postMessage({
    indexError: message,
    ...(typeof code === 'string' ? { code } : {}),
    retryInMs,
  } satisfies IndexFailure);
  // A searcher gets the failure now rather than waiting through the retries.
  failCatchUps(message);
  scheduleIndexing(retryInMs);
}

/** Chunks run between writes (scheduleIndexing), so a long catch-up never holds up commits. */
function catchUp(id: number): void {
  const upTo = indexer.logEnd();
  if (indexer.indexed() >= upTo) {
    port.postMessage({ id, ok: true } satisfies WriteResponse);
    return;
  }
  catchUps.push({ id, upTo });
  scheduleIndexing();
}

function answerCatchUps(): void {
  if (catchUps.length === 0) return;
  const indexed = indexer.indexed();
  let next = catchUps[0];
  while (next !== undefined && next.upTo <= indexed) {
    catchUps.shift();
    port.postMessage({ id: next.id, ok: true } satisfies WriteResponse);
    next = catchUps[0];
  }
}

function failCatchUps(message: string): void {
  for (const { id } of catchUps.splice(0)) port.postMessage({ id, ok: false, message } satisfies WriteResponse);
}

/** Keeps the index within MAX_INDEX_LAG of the log, at the cost of taking writes later. */
function boundIndexLag(): void {
  try {
    while (indexer.lag() > MAX_INDEX_LAG && indexChunk() > 0);
  } catch (error) {
    reportIndexError(error);
  }
}

port.postMessage('ready');
// Records written before a restart may not be indexed yet.
scheduleIndexing();

port.on('message', (request: WriteRequest | CatchUpRequest | 'close') => {
  if (request === 'close') {
    closed = true;
    failCatchUps('the record writer is closing');
    connection.close();
    port.close();
    return;
  }
  if ('catchUp' in request) {
    try {
      catchUp(request.id);
    } catch (error) {
      port.postMessage({ id: request.id, ok: false, message: (error as Error).message } satisfies WriteResponse);
    }
    return;
  }
  let response: WriteResponse;
  try {
    response = { id: request.id, ok: true, seq: writeImmediate(request.batches) };
  } catch (error) {
    const err = error as Error & { code?: string };
    response = { id: request.id, ok: false, message: err.message, ...(err.code ? { code: err.code } : {}) };
  }
  port.postMessage(response);
  boundIndexLag();
  scheduleIndexing();
});
