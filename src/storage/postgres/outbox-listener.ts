// PostgreSQL's side of the outbox wake-up: a connection of its own LISTENs on the schema's
// channel, on which emitEvents NOTIFYs as its transaction commits (webhooks/outbox-wake.ts), so
// every node's dispatcher hears deliveries queued on any node. A lost connection is reopened.
import pg from 'pg';
import type { PostgresDatabase } from '../database.js';
import { CHANNEL_PREFIX, type OutboxListener } from '../../webhooks/outbox-wake.js';

/** After the listening connection fails, this long before it is opened again. */
const RELISTEN_MS = 5_000;

export function postgresOutboxListener(database: PostgresDatabase): OutboxListener {
  return (poke, onError) => {
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
        clearTimeout(timer);
        const open = client;
        client = undefined;
        await open?.end();
      },
    };
  };
}
