// The PostgreSQL search indexer: stores each record's tsvector in telemetry_fts. PostgreSQL does
// the tokenising; nothing crosses to Node. It is a consumer of the record log
// (record-log/record-consumer.ts) with two drivers:
// - Embedded (one process writes the log): a follower (record-log/log-follower.ts) reads the
//   sequences after the index cursor and indexes them in the transaction that moves it.
// - Scale-out (several workers write at once, so sequences do not commit in order and a cursor
//   could pass a record still being written): each worker applies it to its own records inside
//   the transaction that stores them, so a committed record is always indexed. The follower then
//   only moves the cursor on (records already indexed are not tokenised again), which the live
//   tail's horizon reads.
// The index cursor is a sequence, not a snapshot position: the live tail and the index lag read
// it as "every record at or below it is indexed" (telemetry/telemetry-store.ts indexedUpTo).
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Tables } from '../schema.js';
import { SEARCH_INDEX_CURSOR } from '../../telemetry/telemetry-store.js';
import { BackgroundLoop, type NextRun } from '../../core/background-loop.js';
import { CursorMoved, type LogPosition } from '../../record-log/record-log.js';
import type { LogEntry, RecordConsumer } from '../../record-log/record-consumer.js';
import { LogFollower, type FollowedLog } from '../../record-log/log-follower.js';

/** Only the start of a very large record is indexed: a tsvector holds at most 1 MB. */
const INDEXED_CHARS = 262_144;

/** The search index as a consumer of the record log: it needs the records' sequences only. */
export const searchIndexConsumer: RecordConsumer<LogEntry> = {
  apply: (trx, batch) =>
    indexStoredRecords(
      trx,
      batch.records.map((record) => record.seq),
    ),
  // It holds nothing in memory: what it did is in the transaction, committed or not.
  discard: () => undefined,
};

/**
 * The log as the index follows it: sequences after the cursor in sequence order, up to `upTo`,
 * and no record text (the INSERT … SELECT reads that inside the database).
 */
export class IndexedPositions implements FollowedLog<LogEntry> {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly upTo = Number.MAX_SAFE_INTEGER,
  ) {}

  async position(cursor: string): Promise<LogPosition> {
    const row = await this.db.selectFrom('log_cursors').select('seq').where('name', '=', cursor).executeTakeFirst();
    if (!row) throw new Error(`log cursor ${cursor} is missing (migration 0003 creates it)`);
    return { seq: row.seq, txId: '0' };
  }

  async read(from: LogPosition, limit: number): Promise<{ records: LogEntry[]; to: LogPosition }> {
    const rows = await this.db
      .selectFrom('telemetry_records')
      .select(['seq', 'tenant_id'])
      .where('seq', '>', from.seq)
      .where('seq', '<=', this.upTo)
      .orderBy('seq')
      .limit(limit)
      .execute();
    const records = rows.map((row) => ({ seq: row.seq, tenantId: row.tenant_id }));
    return { records, to: { seq: records.at(-1)?.seq ?? from.seq, txId: '0' } };
  }

  async acknowledge(trx: Transaction<Tables>, cursor: string, from: LogPosition, to: LogPosition): Promise<void> {
    // Waits for another indexer's commit of the same cursor, then fails this chunk: it is read again from there.
    const moved = await trx
      .updateTable('log_cursors')
      .set({ seq: to.seq })
      .where('name', '=', cursor)
      .where('seq', '=', from.seq)
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) throw new CursorMoved(`the ${cursor} cursor moved under this indexer`);
  }
}

/**
 * Indexes up to `limit` records with sequence ≤ `upTo` after the index cursor, moving it; returns
 * how many it indexed. Another indexer moving the cursor first (a search catching the index up
 * beside the loop) only means reading again from where it left it.
 */
export async function indexPostgresChunk(
  db: Kysely<Tables>,
  limit: number,
  upTo = Number.MAX_SAFE_INTEGER,
): Promise<number> {
  const follower = new LogFollower(db, new IndexedPositions(db, upTo), SEARCH_INDEX_CURSOR, searchIndexConsumer, limit);
  for (;;) {
    const { records, moved } = await follower.runChunk();
    if (!moved) return records;
  }
}

/** SQLSTATE classes 22 (data exception) and 54 (program limit, e.g. tsvector too long). */
function isDataError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('54'));
}

/**
 * Inside the caller's transaction: indexes the records with these sequences that are not indexed
 * yet. A record PostgreSQL cannot tokenise is indexed as empty (a savepoint keeps the transaction
 * usable), so one record never refuses its batch.
 */
export async function indexStoredRecords(trx: Transaction<Tables>, seqs: readonly number[]): Promise<void> {
  if (seqs.length === 0) return;
  const insert = (some: readonly number[], mode: 'tokens' | 'empty') => {
    const vector =
      mode === 'tokens' ? sql`to_tsvector('simple'::regconfig, left(record, ${INDEXED_CHARS}))` : sql`''::tsvector`;
    // The bounds are implied by the list; stated, they let both tables be read as one index range
    // each, however large they are. Tokenising happens before ON CONFLICT could skip a row, so
    // records already indexed (the scale-out cursor passing its workers' records) are left out first.
    const low = some.reduce((a, b) => Math.min(a, b));
    const high = some.reduce((a, b) => Math.max(a, b));
    return sql`INSERT INTO telemetry_fts (seq, tenant_id, tsv)
      SELECT seq, tenant_id, ${vector} FROM telemetry_records r
      WHERE seq BETWEEN ${low} AND ${high} AND seq = ANY(${[...some]}::bigint[])
        AND NOT EXISTS (SELECT 1 FROM telemetry_fts done WHERE done.seq = r.seq AND done.seq BETWEEN ${low} AND ${high})
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
