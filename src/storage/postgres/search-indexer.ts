// The PostgreSQL search indexer: stores each record's tsvector in telemetry_fts. PostgreSQL does
// the tokenising; nothing crosses to Node. Two ways in:
// - Embedded (one process writes the log): a loop follows the log in chunks committed together
//   with the cursor (the cursor row is locked, so concurrent indexers take turns).
// - Scale-out (several workers write at once, so sequences do not commit in order and a cursor
//   could pass a record still being written): each worker indexes its own records inside the
//   transaction that stores them (indexStoredRecords), so a committed record is always indexed.
//   The cursor loop then only moves the cursor on (it skips records already indexed), which the
//   live tail's horizon reads.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Tables } from '../schema.js';
import { SEARCH_INDEX_CURSOR } from '../../telemetry/telemetry-store.js';
import { BackgroundLoop, type NextRun } from '../../core/background-loop.js';

/** Only the start of a very large record is indexed: a tsvector holds at most 1 MB. */
const INDEXED_CHARS = 262_144;

/**
 * Indexes up to `limit` records with sequence ≤ `upTo`; returns how many it indexed. A chunk
 * PostgreSQL cannot index (a record it cannot tokenise) is redone one record at a time, and a
 * record that still fails is indexed as empty, so one record never stops the index.
 */
export async function indexPostgresChunk(
  db: Kysely<Tables>,
  limit: number,
  upTo = Number.MAX_SAFE_INTEGER,
): Promise<number> {
  try {
    return await indexRange(db, limit, upTo, 'tokens');
  } catch (error) {
    if (!isDataError(error)) throw error;
  }
  let indexed = 0;
  while (indexed < limit) {
    let n: number;
    try {
      n = await indexRange(db, 1, upTo, 'tokens');
    } catch (error) {
      if (!isDataError(error)) throw error;
      n = await indexRange(db, 1, upTo, 'empty');
    }
    if (n === 0) break;
    indexed += n;
  }
  return indexed;
}

/** SQLSTATE classes 22 (data exception) and 54 (program limit, e.g. tsvector too long). */
function isDataError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('54'));
}

async function indexRange(db: Kysely<Tables>, limit: number, upTo: number, mode: 'tokens' | 'empty'): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const cursor = await sql<{
      seq: number;
    }>`SELECT seq FROM log_cursors WHERE name = ${SEARCH_INDEX_CURSOR} FOR UPDATE`.execute(trx);
    const from = cursor.rows[0]?.seq ?? 0;
    const vector =
      mode === 'tokens' ? sql`to_tsvector('simple'::regconfig, left(record, ${INDEXED_CHARS}))` : sql`''::tsvector`;
    const result = await sql<{ n: number; last: number | null }>`
      WITH batch AS (
        SELECT seq, tenant_id, record FROM telemetry_records WHERE seq > ${from} AND seq <= ${upTo} ORDER BY seq LIMIT ${limit}
      ), indexed AS (
        INSERT INTO telemetry_fts (seq, tenant_id, tsv) SELECT seq, tenant_id, ${vector} FROM batch
        WHERE NOT EXISTS (SELECT 1 FROM telemetry_fts done WHERE done.seq = batch.seq)
        ON CONFLICT (seq) DO NOTHING
      )
      SELECT count(*)::int AS n, max(seq) AS last FROM batch`.execute(trx);
    const { n, last } = result.rows[0] ?? { n: 0, last: null };
    if (n > 0 && last !== null) {
      await trx.updateTable('log_cursors').set({ seq: last }).where('name', '=', SEARCH_INDEX_CURSOR).execute();
    }
    return n;
  });
}

/**
 * Inside the transaction that stored them: indexes the records with these sequences. A record
 * PostgreSQL cannot tokenise is indexed as empty (a savepoint keeps the transaction usable), as
 * the cursor loop does, so one record never refuses its batch.
 */
export async function indexStoredRecords(trx: Transaction<Tables>, seqs: readonly number[]): Promise<void> {
  if (seqs.length === 0) return;
  const insert = (some: readonly number[], mode: 'tokens' | 'empty') => {
    const vector =
      mode === 'tokens' ? sql`to_tsvector('simple'::regconfig, left(record, ${INDEXED_CHARS}))` : sql`''::tsvector`;
    return sql`INSERT INTO telemetry_fts (seq, tenant_id, tsv)
      SELECT seq, tenant_id, ${vector} FROM telemetry_records WHERE seq = ANY(${[...some]}::bigint[])
      ON CONFLICT (seq) DO NOTHING`.execute(trx);
  };
  if (await inSavepoint(trx, () => insert(seqs, 'tokens'))) return;
  for (const seq of seqs) if (!(await inSavepoint(trx, () => insert([seq], 'tokens')))) await insert([seq], 'empty');
}

/** Runs `work` under a savepoint; false (rolled back to it) when PostgreSQL refused the data. */
async function inSavepoint(trx: Transaction<Tables>, work: () => Promise<unknown>): Promise<boolean> {
  await sql`SAVEPOINT search_index`.execute(trx);
  try {
    await work();
  } catch (error) {
    if (!isDataError(error)) throw error;
    await sql`ROLLBACK TO SAVEPOINT search_index`.execute(trx);
    return false;
  }
  await sql`RELEASE SAVEPOINT search_index`.execute(trx);
  return true;
}

const CHUNK = 5_000;
const MIN_CHUNK = 250;
/**
 * A chunk is sized to take about this long at the pace of the last one: under load a chunk of
 * CHUNK records can take seconds, and stop() (shutdown) waits for the chunk under way.
 */
const CHUNK_TARGET_MS = 250;

/** The next chunk's size: what the last one's pace indexes in CHUNK_TARGET_MS, within bounds. */
export function nextChunkSize(indexed: number, elapsedMs: number): number {
  if (indexed === 0) return CHUNK;
  const paced = Math.round((indexed * CHUNK_TARGET_MS) / Math.max(elapsedMs, 1));
  return Math.min(CHUNK, Math.max(MIN_CHUNK, paced));
}
const IDLE_POLL_MS = 1_000;
/**
 * While commits keep coming (one within ACTIVE_GAP_MS), a chunk that took d ms is followed by
 * d × (1 − INDEX_SHARE) / INDEX_SHARE ms of rest: tokenising costs the database several times
 * what storing a record does, and during a burst that CPU time is the writer's. A text search
 * does not wait for this pace: it indexes what is missing itself (catchUpSearchIndex).
 */
const INDEX_SHARE = 0.25;
const ACTIVE_GAP_MS = 1_000;
const MAX_REST_MS = 5_000;
const ERROR_BACKOFF_MS = 5_000;
const MAX_BACKOFF_MS = 300_000;

/** The rest after a full chunk that took `chunkMs`, the last commit `sinceCommitMs` ago. */
export function restAfterChunk(chunkMs: number, sinceCommitMs: number): number {
  if (sinceCommitMs >= ACTIVE_GAP_MS) return 0;
  return Math.min(MAX_REST_MS, (chunkMs * (1 - INDEX_SHARE)) / INDEX_SHARE);
}

/**
 * Keeps the PostgreSQL search index following the log a chunk at a time: woken after each
 * commit, and polling once a second in case another process wrote. A rest during a burst is
 * waited out whatever the commits (it is their share), and stop() ends it at once. After an
 * error it backs off, 5 s doubling to 5 minutes, so a persistent fault is retried and reported
 * ever more rarely.
 */
export class PostgresSearchIndexLoop {
  private readonly loop: BackgroundLoop;
  private lastCommitAt = 0;
  private chunk = CHUNK;

  constructor(
    private readonly db: Kysely<Tables>,
    onError: (error: unknown) => void,
  ) {
    this.loop = new BackgroundLoop({
      run: () => this.indexChunk(),
      idleMs: IDLE_POLL_MS,
      backoff: { baseMs: ERROR_BACKOFF_MS, maxMs: MAX_BACKOFF_MS },
      onError,
    });
  }

  start(): void {
    this.loop.start();
  }

  /** Called after each commit of records. */
  poke(): void {
    this.lastCommitAt = Date.now();
    this.loop.poke();
  }

  /** Waits for the chunk under way (which its sizing keeps short). */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** One chunk: a full one is followed by the next after its rest, a short one (caught up) by the poll. */
  private async indexChunk(): Promise<NextRun> {
    const started = Date.now();
    const limit = this.chunk;
    const indexed = await indexPostgresChunk(this.db, limit);
    // A short chunk says nothing about the pace.
    if (indexed < limit) return undefined;
    const elapsedMs = Date.now() - started;
    this.chunk = nextChunkSize(indexed, elapsedMs);
    return { restMs: restAfterChunk(elapsedMs, Date.now() - this.lastCommitAt) };
  }
}
