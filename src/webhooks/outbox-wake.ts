// Wakes the dispatcher when deliveries commit, so an event written inside a case, observation
// or summary transaction goes out at once rather than at the next poll. The signal must not
// arrive before the commit (the dispatcher would find nothing and sleep a whole poll):
// - PostgreSQL: emitEvents sends a NOTIFY in the same transaction, which PostgreSQL delivers
//   only once it commits (and drops on rollback), to every node listening on the schema.
// - SQLite: the server's writes share one connection, lent out under a mutex, so the
//   dispatcher's next query runs after the emitting transaction ends; the detection thread,
//   with a connection of its own, says so after its commit (detection-worker.ts).
// The dispatcher's poll stays, for other processes on SQLite and for a lost listener.
import pg from 'pg';
import { PostgresAdapter, sql } from 'kysely';
import type { Database, Db } from '../storage/database.js';

const CHANNEL_PREFIX = 'sightline_webhooks:';
/** After the listening connection fails, this long before it is opened again. */
const RELISTEN_MS = 5_000;

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

/** Calls `poke` when deliveries were queued: by this thread, or on PostgreSQL by any node. */
export function startOutboxWake(database: Database, poke: () => void, onError: (error: unknown) => void): OutboxWake {
  const unsubscribe = onDeliveriesQueued(poke);
  if (database.kind !== 'postgres')
    return {
      stop: () => {
        unsubscribe();
        return Promise.resolve();
      },
    };
  const channel = `${CHANNEL_PREFIX}${database.pgSchema}`;
  let client: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const listen = async () => {
    const opened = new pg.Client({ ...database.pgConfig });
    client = opened;
    opened.on('notification', (message) => {
      if (message.channel === channel) poke();
    });
    opened.on('error', (error) => {
      // Ending it on stop is no failure to report.
      if (stopped) return;
      onError(error);
      relisten(opened);
    });
    await opened.connect();
    await opened.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    // Whatever was queued while nobody listened.
    poke();
  };
  const relisten = (failed: pg.Client) => {
    if (client !== failed) return;
    client = undefined;
    // It failed already (and said so); ending it only frees its socket.
    failed.end().catch(onError);
    if (stopped) return;
    timer = setTimeout(() => {
      listen().catch((error: unknown) => {
        onError(error);
        if (client) relisten(client);
      });
    }, RELISTEN_MS).unref();
  };
  listen().catch((error: unknown) => {
    onError(error);
    if (client) relisten(client);
  });
  return {
    stop: async () => {
      stopped = true;
      unsubscribe();
      clearTimeout(timer);
      const open = client;
      client = undefined;
      await open?.end();
    },
  };
}
