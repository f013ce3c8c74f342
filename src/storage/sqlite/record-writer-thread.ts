// The SQLite record-log writer, on its own thread: it owns one connection (WAL) and commits
// each group of batches in one transaction, then fsyncs the WAL before it answers. The main
// thread parses while this one waits on fsync, and a long commit never blocks the event loop.
// Between commits it runs the search indexer in short chunks, only while no write is waiting,
// for at most INDEX_SHARE of its time: a text search should find a record seconds after its 201,
// so the index keeps up with sustained ingest, and the gaps between chunks leave the write lock
// to detection. Past MAX_INDEX_LAG writes pay for indexing themselves (back-pressure). A
// server's text search asks to be told when the index has reached the log's end as it was, and
// waits for that a short while only (telemetry/search-index.ts).
import fs from 'node:fs';
import { parentPort, receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { BUSY_TIMEOUT_MS, configureSqliteConnection } from '../database.js';
import { WriteGate } from '../sqlite-write-gate.js';
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
 * While writes keep coming, chunks are smaller: every write then waits for at most one short
 * chunk, which keeps the slowest 201s down (FTS5 merging segments still makes a chunk slow at
 * times). Each chunk is a segment of the index to merge later, so not smaller still.
 */
const BURST_INDEX_CHUNK = 500;
/**
 * Past this many unindexed records each write also indexes as many records as it added before
 * the writer takes the next: the lag stops growing, commits slow to the indexing rate, the queue
 * fills and senders get 503 (back-pressure), instead of search falling behind without bound.
 * Below it, indexing uses only the time the writer would otherwise wait for work. The bound is
 * set so that a burst of about fifteen seconds at the full ingest rate of two cores never reaches
 * it: once reached, every commit waits for its indexing and the slowest 201s grow several times
 * over (docs/performance.md, bench:ingest). A text search meanwhile answers with what is
 * indexed, marked partial (docs/search.md, Full text).
 */
const MAX_INDEX_LAG = 3_000_000;
/**
 * A chunk that took d ms is followed by at least d × (1 − INDEX_SHARE) / INDEX_SHARE ms without
 * indexing, so that detection, which also needs the write lock, gets it between chunks. A
 * waiting text search changes nothing: it is answered when the index passes the log end it saw.
 */
const INDEX_SHARE = 0.6;
/**
 * A little behind (a commit too large to index itself, a slow moment), the chunks take nearly all
 * the time between writes, so that the index is caught up again within seconds and the commits
 * index their own records once more; far behind (a burst), the usual share.
 */
const NEAR_INDEX_SHARE = 0.95;
const NEAR_LAG = 30_000;
/** Far behind while writes keep coming, a burst is under way: its 201s come first. */
const BURST_INDEX_SHARE = 0.2;

function indexShare(writing: boolean, more: boolean): number {
  if (!more) return INDEX_SHARE;
  const lag = indexer.lag();
  if (lag < NEAR_LAG) return NEAR_INDEX_SHARE;
  return writing ? BURST_INDEX_SHARE : INDEX_SHARE;
}
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

const data = workerData as { path: string; gate: SharedArrayBuffer };
const connection = new SQLite(data.path);
configureSqliteConnection(connection);
// Commits do not fsync under the write lock (FULL would): each record commit is made durable by
// an fsync of the WAL file right after it, with the lock already given back, so that detection
// and the indexer write meanwhile. A commit's 201 still waits for that fsync (durableWrite).
connection.pragma('synchronous = NORMAL');
let walFd: number | undefined;
/** fsync of the WAL file: everything committed to it so far, by any connection, is on disk. */
function syncWal(): void {
  walFd ??= fs.openSync(`${data.path}-wal`, 'r');
  fs.fsyncSync(walFd);
}
/** Every write transaction of this thread passes the process's write gate (sqlite-write-gate.ts). */
const gate = new WriteGate(data.gate);
function gated<T>(write: () => T): T {
  gate.enter(BUSY_TIMEOUT_MS);
  try {
    return write();
  } finally {
    gate.leave();
  }
}

/**
 * Most records a commit indexes itself (its own and those earlier commits left). Under sustained
 * load that is a few hundred to a few thousand; more is a burst, whose senders would wait for
 * indexing (about 10 µs a record): the index catches up between commits instead.
 */
const INLINE_INDEX_MAX = 3_000;

const COLUMNS = 'INSERT INTO telemetry_records (tenant_id, received_at, event_time, record, meta) VALUES ';
/** Rows per INSERT statement: one statement per row was most of the cost of storing a record. */
const ROWS_PER_INSERT = 64;
const insertOne = connection.prepare(`${COLUMNS}(?, ?, ?, ?, ?)`);
const insertMany = connection.prepare(
  `${COLUMNS}${Array.from({ length: ROWS_PER_INSERT }, () => '(?, ?, ?, ?, ?)').join(', ')}`,
);

const writeAll = connection.transaction((batches: RecordBatch[]): number => {
  let last = 0;
  let count = 0;
  const values: unknown[] = [];
  for (const batch of batches) {
    count += batch.records.length;
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
  // While the index keeps up, the commit indexes what is not indexed yet (its own records, and
  // what earlier commits left): searchable as soon as acknowledged, without a transaction of
  // its own. Further behind (a burst: large commits), the commits stay fast and the chunks
  // between them catch the index up.
  if (count > 0) indexer.indexRestWithin(INLINE_INDEX_MAX);
  return last;
});

/**
 * Commits the batches and makes them durable; returns the last record's sequence. `immediate`
 * takes the write lock at BEGIN (`transaction()` alone begins deferred and could fail half-way).
 */
function durableWrite(batches: RecordBatch[]): number {
  const seq = gated(() => writeAll.immediate(batches));
  syncWal();
  return seq;
}

const indexer = createSqliteSearchIndexer(connection);
let indexingScheduled = false;
let closed = false;
/** Catch-ups waiting for the index to reach the log end each saw, in arrival order. */
const catchUps: { id: number; upTo: number }[] = [];

/**
 * One chunk of indexing. The index can be rebuilt from the log, so its chunks need no fsync of
 * their own: the WAL keeps chunk and cursor consistent, and the next record commit's fsync
 * makes them durable too.
 */
function indexChunk(limit = INDEX_CHUNK): number {
  return gated(() => indexer.indexChunk(limit));
}

/**
 * Pages one merge step of the index writes. The index does not merge its segments as it grows
 * (automerge 0, migration 0048): a merge FTS5 started inside a commit could hold it, and every
 * 201 waiting on it, for a large part of a second. The writer merges here instead, in steps of
 * about this many pages between commits, paced like indexing.
 */
const MERGE_PAGES = 64;
const mergeStep = connection.prepare(
  `INSERT INTO telemetry_fts (telemetry_fts, rank) VALUES ('merge', ${MERGE_PAGES})`,
);
const totalChanges = connection.prepare('SELECT total_changes()').pluck();

/** One merge step; whether it found segments to merge (FTS5 then reports two changes or more). */
function mergeIndex(): boolean {
  return gated(() => {
    const before = totalChanges.get() as number;
    mergeStep.run();
    return (totalChanges.get() as number) - before >= 2;
  });
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
    if (now < indexingPausedUntil) {
      scheduleIndexing(indexingPausedUntil - now);
      return;
    }
    try {
      const burst = Date.now() - lastWriteAt < ACTIVE_GAP_MS;
      const limit = burst ? BURST_INDEX_CHUNK : INDEX_CHUNK;
      const started = performance.now();
      const indexed = indexChunk(limit);
      // Caught up: the time goes to merging the segments the commits added.
      const merging = indexed < limit && mergeIndex();
      const took = performance.now() - started;
      const share = indexShare(burst, indexed === limit);
      indexingPausedUntil = Date.now() + (took * (1 - share)) / share;
      indexFailuresInARow = 0;
      retryNotBefore = 0;
      answerCatchUps();
      if (indexed === limit || merging) scheduleIndexing();
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
    if (walFd !== undefined) fs.closeSync(walFd);
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
    response = { id: request.id, ok: true, seq: durableWrite(request.batches) };
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
