// The PostgreSQL search indexer: follows the record log and stores each record's tsvector in
// telemetry_fts, in chunks committed together with the cursor (the cursor row is locked, so
// concurrent indexers take turns). PostgreSQL does the tokenising; nothing crosses to Node.
// Sequences are committed in order because one group-commit queue per database writes the
// log; several writing processes will need a visibility-safe follower (see README).
import { sql, type Kysely } from 'kysely';
import type { Tables } from '../storage/schema.js';
import { SEARCH_INDEX_CURSOR } from './sqlite-search-indexer.js';

/** Indexes up to `limit` records with sequence ≤ `upTo`; returns how many it indexed. */
export async function indexPostgresChunk(db: Kysely<Tables>, limit: number, upTo = Number.MAX_SAFE_INTEGER): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const cursor = await sql<{ seq: number }>`SELECT seq FROM log_cursors WHERE name = ${SEARCH_INDEX_CURSOR} FOR UPDATE`.execute(trx);
    const from = cursor.rows[0]?.seq ?? 0;
    const result = await sql<{ n: number; last: number | null }>`
      WITH batch AS (
        SELECT seq, tenant_id, record FROM telemetry_records WHERE seq > ${from} AND seq <= ${upTo} ORDER BY seq LIMIT ${limit}
      ), indexed AS (
        INSERT INTO telemetry_fts (seq, tenant_id, tsv)
        SELECT seq, tenant_id, to_tsvector('simple'::regconfig, record) FROM batch
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

export async function postgresLogEnd(db: Kysely<Tables>): Promise<number> {
  const row = await db.selectFrom('telemetry_records').select((eb) => eb.fn.max('seq').as('end')).executeTakeFirst();
  return Number(row?.end ?? 0);
}

const CHUNK = 5_000;
const IDLE_POLL_MS = 1_000;

/**
 * Keeps the PostgreSQL search index following the log: woken after each commit, and polling
 * once a second in case another process wrote. One chunk at a time; errors are reported and
 * retried on the next poll.
 */
export class PostgresSearchIndexLoop {
  private running = false;
  private again = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Kysely<Tables>,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.poke(), IDLE_POLL_MS);
    this.poke();
  }

  poke(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    this.current = this.run().finally(() => {
      this.running = false;
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.current;
  }

  private async run(): Promise<void> {
    do {
      this.again = false;
      try {
        while (!this.stopped && (await indexPostgresChunk(this.db, CHUNK)) === CHUNK);
      } catch (error) {
        this.onError(error);
        return;
      }
    } while (this.again && !this.stopped);
  }
}
