// Starts the retention purger for a server: its metrics on the server's registry, its lease
// holder named after this process, and on PostgreSQL the table partition upkeep.
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Registry } from 'prom-client';
import type { Database } from '../storage/database.js';
import { RetentionPurger } from '../retention/purger.js';
import { retentionMetrics } from '../retention/retention-metrics.js';
import { tablePartitionUpkeep } from '../retention/table-partitions.js';
import type { RecordPurge } from '../retention/purge-port.js';

export async function startRetention(
  database: Database,
  purge: RecordPurge,
  registry: Registry,
  intervalMs: number,
  onError: (error: unknown) => void,
  webhookLogMs?: number,
): Promise<RetentionPurger> {
  const purger = new RetentionPurger({
    db: database.db,
    purge,
    holder: `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
    metrics: retentionMetrics(registry),
    onError,
    ...(webhookLogMs === undefined ? {} : { webhookLogMs }),
    ...(database.kind === 'postgres' ? { tablePartitions: tablePartitionUpkeep(database.db) } : {}),
  });
  // Day partitions for the days ahead exist before the first record of those days arrives.
  if (database.kind === 'postgres')
    await tablePartitionUpkeep(database.db)({ now: Date.now(), cutoffs: new Map(), held: new Set() });
  purger.start(intervalMs);
  return purger;
}
