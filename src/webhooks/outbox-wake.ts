// Wakes the dispatcher when deliveries commit, so an event written inside a case, observation
// or summary transaction goes out at once rather than at the next poll. The signal must not
// arrive before the commit (the dispatcher would find nothing and sleep a whole poll):
// - PostgreSQL: emitEvents sends a NOTIFY in the same transaction, which PostgreSQL delivers
//   only once it commits (and drops on rollback), to every node listening on the schema.
// - SQLite: the server's writes share one connection, lent out under a mutex, so the
//   dispatcher's next query runs after the emitting transaction ends; the detection thread,
//   with a connection of its own, says so in its progress message after its commit
//   (pipeline/detection-thread.ts), and its host wakes the dispatcher (detection-thread-host.ts).
// The dispatcher's poll stays, for other processes on SQLite and for a lost listener. Hearing
// other nodes is a storage port (storage/postgres/outbox-listener.ts on PostgreSQL).
import { PostgresAdapter, sql } from 'kysely';
import type { Db } from '../storage/database.js';

/** The NOTIFY channel is this plus the schema, so nodes on one schema hear only each other. */
export const CHANNEL_PREFIX = 'sightline_webhooks:';

const listeners = new Set<() => void>();

/** Called (in this thread) whenever deliveries were queued here; returns the unsubscribe. */
export function onDeliveriesQueued(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Tells this thread's listeners that deliveries were queued (and are committed, or will be before they can read). */
export function deliveriesQueued(): void {
  for (const listener of listeners) listener();
}

/** emitEvents calls this inside the transaction that queued deliveries. */
export async function announceQueued(trx: Db): Promise<void> {
  if (trx.getExecutor().adapter instanceof PostgresAdapter)
    await sql`SELECT pg_notify(${CHANNEL_PREFIX} || current_schema(), '')`.execute(trx);
  else deliveriesQueued();
}

export interface OutboxWake {
  stop(): Promise<void>;
}

/**
 * The storage port that hears deliveries queued by other processes and nodes (PostgreSQL's
 * LISTEN); where only this process writes (SQLite), it hears nothing and the poll covers the rest.
 */
export type OutboxListener = (poke: () => void, onError: (error: unknown) => void) => OutboxWake;

/** Calls `poke` when deliveries were queued: by this thread, or by any node the port hears. */
export function startOutboxWake(
  listen: OutboxListener,
  poke: () => void,
  onError: (error: unknown) => void,
): OutboxWake {
  const unsubscribe = onDeliveriesQueued(poke);
  const remote = listen(poke, onError);
  return {
    stop: async () => {
      unsubscribe();
      await remote.stop();
    },
  };
}
