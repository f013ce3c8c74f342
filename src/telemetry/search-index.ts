// Text search and the index it reads. The index follows the log a little behind (seconds under
// sustained ingest, more after a burst), so a text search first asks for it to be brought up to
// the log's current end, but waits for that only briefly: it then answers with what is indexed
// and says so (`partial`, with the receive time every record before which is searchable). A
// search never waits on a lagging index; field and time searches never ask at all. How the index
// catches up is a storage port (storage/sqlite/search-index.ts, storage/postgres/search-index.ts).
import type { Kysely } from 'kysely';
import type { Tables } from '../storage/schema.js';
import { SEARCH_INDEX_CURSOR } from './telemetry-store.js';

/** The search index port: indexes what the log holds up to its current end, then resolves. */
export interface SearchIndexCatchUp {
  catchUp(): Promise<void>;
}

/** The writer of a running server, which may keep the index itself (SQLite's writer thread). */
export interface SearchIndexKeeper {
  catchUpSearchIndex?(): Promise<void>;
}

/** How long a text search waits for the index to reach the log's end before answering partial. */
export const SEARCH_INDEX_WAIT_MS = 500;

/** Whether a text search saw every record of the tenant, and if not, up to when it did. */
export type IndexFreshness = { partial: false } | { partial: true; completeUpTo: number };

export const COMPLETE: IndexFreshness = { partial: false };

/** One catch-up at a time per index: searches arriving meanwhile wait for the same one. */
const running = new WeakMap<object, Promise<void>>();

/**
 * In a server, pass the writer: on SQLite its thread does the indexing, because indexing on
 * this thread would block the event loop for every chunk. Without one (the CLI), the port
 * indexes here, to the end.
 */
export function catchUpSearchIndex(index: SearchIndexCatchUp, keeper?: SearchIndexKeeper): Promise<void> {
  const owner = keeper?.catchUpSearchIndex ? keeper : index;
  const shared = running.get(owner);
  if (shared) return shared;
  const started = (keeper?.catchUpSearchIndex ? keeper.catchUpSearchIndex() : index.catchUp()).finally(() =>
    running.delete(owner),
  );
  running.set(owner, started);
  return started;
}

/**
 * Asks for the index to reach the log's end and waits up to `waitMs` for it; then tells how
 * complete a text search of the tenant's records is. A catch-up still running goes on by itself.
 */
export async function freshIndex(
  db: Kysely<Tables>,
  tenantId: number,
  catchUp: () => Promise<void>,
  waitMs = SEARCH_INDEX_WAIT_MS,
): Promise<IndexFreshness> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), waitMs)));
  const caughtUp = catchUp();
  // A failure after the search answered is the indexer's to report, not this search's.
  caughtUp.catch(() => undefined);
  try {
    await Promise.race([caughtUp, late]);
  } finally {
    clearTimeout(timer);
  }
  // Asked afresh either way: a catch-up shared with an earlier search may have ended at the log
  // end that search saw, before records this one must find.
  return indexFreshness(db, tenantId);
}

/** The receive time of the first record (of the tenant, if given) the index has not reached. */
async function firstUnindexed(db: Kysely<Tables>, tenantId?: number): Promise<number | undefined> {
  let query = db
    .selectFrom('telemetry_records')
    .select('received_at')
    .where('seq', '>', (eb) =>
      eb.selectFrom('log_cursors').select('seq').where('name', '=', SEARCH_INDEX_CURSOR).limit(1),
    );
  if (tenantId !== undefined) query = query.where('tenant_id', '=', tenantId);
  return (await query.orderBy('seq').limit(1).executeTakeFirst())?.received_at;
}

/** Whether a text search of the tenant's records sees them all, and if not, up to when. */
export async function indexFreshness(db: Kysely<Tables>, tenantId: number): Promise<IndexFreshness> {
  const first = await firstUnindexed(db, tenantId);
  return first === undefined ? COMPLETE : { partial: true, completeUpTo: first };
}

/** Seconds since the collector accepted the oldest record not in the index yet; 0 when none is. */
export async function searchIndexDelaySeconds(db: Kysely<Tables>, now = Date.now()): Promise<number> {
  const first = await firstUnindexed(db);
  return first === undefined ? 0 : Math.max(0, now - first) / 1000;
}
