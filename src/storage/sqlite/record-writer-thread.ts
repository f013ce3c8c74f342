// The SQLite record-log writer, on its own thread: it owns one connection (WAL,
// synchronous=FULL) and commits each group of batches in one transaction. The main thread
// parses while this one waits on fsync, and a long commit never blocks the event loop.
// Between commits it runs the search indexer in short chunks, only while no write is waiting
// and, while writes keep coming, for at most a fifth of its time: full-text indexing costs
// several times what storing a record does, so under a burst the index falls behind (up to
// MAX_INDEX_LAG records) and catches up when the burst ends, instead of every 201 waiting for
// it and every chunk taking CPU time that parsing the senders' requests needs. Catching up in
// the background it takes half its time, leaving the write lock free in between for detection,
// which is behind too after a burst and whose alerts come first. A server's text search asks it
// to catch the index up flat out (read-your-writes) rather than indexing on the event loop.
import { parentPort, receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { configureSqliteConnection } from '../database.js';
import type { RecordBatch } from '../../record-log/record-log.js';
import { createSqliteSearchIndexer } from './search-indexer.js';
import { backoffMs } from '../../core/background-loop.js';

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

/**
 * Records per indexing transaction. Small, because a write that arrives while a chunk runs waits
 * for it; large enough that FTS5's per-transaction segments stay few.
 */
const INDEX_CHUNK = 1_000;
/**
 * While writes keep coming, chunks are smaller still: every write then waits for at most one
 * short chunk, which keeps the slowest 201s of a burst down (FTS5 merging segments still makes a
 * chunk slow at times). The measurements are in docs/performance.md, bench:ingest.
 */
const BURST_INDEX_CHUNK = 200;
/**
 * Past this many unindexed records each write also indexes as many records as it added before
 * the writer takes the next: the lag stops growing, commits slow to the indexing rate, the queue
 * fills and senders get 503 (back-pressure), instead of search falling behind without bound.
 * Below it, indexing uses only the time the writer would otherwise wait for work. The bound is
 * set so that a burst of about fifteen seconds at the full ingest rate of two cores never reaches
 * it: once reached, every commit waits for its indexing and the slowest 201s grow several times
 * over (docs/performance.md, bench:ingest). The price: a text search right after such a burst
 * waits for the index to catch up (docs/search.md, Full text).
 */
const MAX_INDEX_LAG = 3_000_000;
/**
 * While writes keep coming (one within ACTIVE_GAP_MS), a chunk that took d ms is followed by
 * at least d × (1 − INDEX_SHARE) / INDEX_SHARE ms without indexing; without writes, the same
 * with IDLE_INDEX_SHARE. A waiting text search lets it run flat out (writes still first).
 */
const INDEX_SHARE = 0.2;
/**
 * Without it, the background catch-up after a burst would hold the write lock in back-to-back
 * chunks, and detection, which waits for the lock in SQLite's busy handler (sleeping up to 100 ms
 * between tries), would crawl until the index had caught up.
 */
const IDLE_INDEX_SHARE = 0.5;
const ACTIVE_GAP_MS = 1_000;
let lastWriteAt = 0;
let indexingPausedUntil = 0;
/** After a failed indexing chunk the indexer waits this long, doubling per failure in a row. */
const INDEX_RETRY_MS = 1_000;
const MAX_INDEX_RETRY_MS = 60_000;
let indexFailuresInARow = 0;
/** While backing off, writes do not bring indexing forward (they would retry at the write rate). */
let retryNotBefore = 0;

function workerPort(): MessagePort {
  if (!parentPort) throw new Error('the record writer thread must run as a worker thread');
  return parentPort;
}
const port = workerPort();

const connection = new SQLite((workerData as { path: string }).path);
configureSqliteConnection(connection);

const COLUMNS = 'INSERT INTO telemetry_records (tenant_id, received_at, event_time, record, meta) VALUES ';
/** Rows per INSERT statement: one statement per row was most of the cost of storing a record. */
const ROWS_PER_INSERT = 64;
const insertOne = connection.prepare(`${COLUMNS}(?, ?, ?, ?, ?)`);
const insertMany = connection.prepare(
  `${COLUMNS}${Array.from({ length: ROWS_PER_INSERT }, () => '(?, ?, ?, ?, ?)').join(', ')}`,
);

const writeAll = connection.transaction((batches: RecordBatch[]): number => {
  let last = 0;
  const values: unknown[] = [];
  for (const batch of batches) {
    const { tenantId, receivedAt, records, eventTimes, metas } = batch;
    for (let i = 0; i < records.length; i++) {
      // No event time of its own (NaN): the receive time stands in.
      const eventTime = eventTimes[i] ?? Number.NaN;
      values.push(tenantId, receivedAt, Number.isNaN(eventTime) ? receivedAt : eventTime, records[i], metas[i] ?? null);
      if (values.length === ROWS_PER_INSERT * 5) {
        last = Number(insertMany.run(values).lastInsertRowid);
        values.length = 0;
      }
    }
  }
  for (let i = 0; i < values.length; i += 5) last = Number(insertOne.run(values.slice(i, i + 5)).lastInsertRowid);
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
function indexChunk(limit = INDEX_CHUNK): number {
  connection.pragma('synchronous = NORMAL');
  try {
    return indexer.indexChunk(limit);
  } finally {
    connection.pragma('synchronous = FULL');
  }
}

/** Indexes one chunk at a time, writes first: whatever arrived meanwhile is handled before each. */
function scheduleIndexing(requested = 0): void {
  if (indexingScheduled || closed) return;
  indexingScheduled = true;
  const step = () => {
    indexingScheduled = false;
    handleWaiting();
    if (closed) return;
    const now = Date.now();
    if (catchUps.length === 0 && now < indexingPausedUntil) {
      scheduleIndexing(indexingPausedUntil - now);
      return;
    }
    try {
      const burst = Date.now() - lastWriteAt < ACTIVE_GAP_MS;
      // A waiting text search has the index caught up flat out, in full-size chunks.
      const limit = burst && catchUps.length === 0 ? BURST_INDEX_CHUNK : INDEX_CHUNK;
      const started = performance.now();
      const indexed = indexChunk(limit);
      const took = performance.now() - started;
      const share = burst ? INDEX_SHARE : IDLE_INDEX_SHARE;
      indexingPausedUntil = Date.now() + (took * (1 - share)) / share;
      indexFailuresInARow = 0;
      retryNotBefore = 0;
      answerCatchUps();
      if (indexed === limit) scheduleIndexing();
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
  indexFailuresInARow++;
  const retryInMs = backoffMs(indexFailuresInARow, INDEX_RETRY_MS, MAX_INDEX_RETRY_MS);
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

/** Past MAX_INDEX_LAG, a write of `written` records pays for indexing as many. */
function boundIndexLag(written: number): void {
  if (Date.now() < retryNotBefore) return;
  try {
    let owed = written;
    while (owed > 0 && indexer.lag() > MAX_INDEX_LAG) {
      const indexed = indexChunk(Math.min(owed, INDEX_CHUNK * 10));
      if (indexed === 0) break;
      owed -= indexed;
    }
  } catch (error) {
    reportIndexError(error);
  }
}

type Request = WriteRequest | CatchUpRequest | 'close';

function handle(request: Request): void {
  if (closed) return;
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
  let written = 0;
  try {
    response = { id: request.id, ok: true, seq: writeImmediate(request.batches) };
    for (const batch of request.batches) written += batch.records.length;
  } catch (error) {
    const err = error as Error & { code?: string };
    response = { id: request.id, ok: false, message: err.message, ...(err.code ? { code: err.code } : {}) };
  }
  port.postMessage(response);
  lastWriteAt = Date.now();
  boundIndexLag(written);
}

/** Takes every request already waiting on the port, so that none waits behind an index chunk. */
function handleWaiting(): void {
  for (let next = receiveMessageOnPort(port); next !== undefined && !closed; next = receiveMessageOnPort(port))
    handle(next.message as Request);
}

port.postMessage('ready');
// Records written before a restart may not be indexed yet.
scheduleIndexing();

port.on('message', (request: Request) => {
  handle(request);
  handleWaiting();
  scheduleIndexing();
});
