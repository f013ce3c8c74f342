// What every consumer of the record log is, whichever deployment drives it: the search index and
// detection apply a batch of records inside a transaction someone else owns, and that owner moves
// the durable position in the same transaction (the embedded log's cursor, log-follower.ts; a
// stream partition's applied sequence under its owner's epoch, storage/postgres/stream-partition-apply.ts).
// So a consumer never commits, never fences and never retries: it applies, and it forgets what it
// holds in memory when told the transaction did not commit or the log changed hands.
import type { Kysely, Transaction } from 'kysely';
import type { Tables } from '../storage/schema.js';
import type { LoggedRecord } from './record-log.js';

/**
 * Which part of the log a batch comes from, and so which in-memory state it continues: the whole
 * embedded log (one durable cursor per consumer), or one stream partition of the scale-out log as
 * held by one owner epoch (a tenant lives on one stream partition, so its state never spans two).
 */
export type ConsumerScope =
  | { kind: 'log' }
  | {
      kind: 'stream-partition';
      partition: number;
      /** How many stream partitions the stream has: which tenants this one holds (record-log/jetstream-codec.ts). */
      partitions: number;
      /** The owner epoch the batch is applied under; a new one means another owner may have applied since. */
      epoch: number;
    };

/** The least a consumer can ask of a record: where it is in the log and whose it is. */
export type LogEntry = Pick<LoggedRecord, 'seq' | 'tenantId'>;

/** Records in the order the consumer must apply them, all from one scope. */
export interface ConsumedBatch<R extends LogEntry = LoggedRecord> {
  scope: ConsumerScope;
  records: readonly R[];
}

export interface RecordConsumer<R extends LogEntry = LoggedRecord> {
  /**
   * Optional: the batch's work that needs no transaction (matching, parsing), done before the
   * driver opens the one `apply` runs in, so that the transaction (on SQLite, the database's one
   * write lock) is held only for the writes. A driver may skip it; `apply` then does that work
   * itself. What it computed is the consumer's memory: `discard` forgets it.
   */
  prepare?(db: Kysely<Tables>, batch: ConsumedBatch<R>): Promise<void>;
  /**
   * Applies the batch's effects inside `trx`, which also moves the scope's durable position: both
   * commit or neither does. Throwing rolls the whole transaction back.
   */
  apply(trx: Transaction<Tables>, batch: ConsumedBatch<R>): Promise<void>;
  /** The transaction of the scope's last apply committed: what it produced may now be reported. */
  committed?(scope: ConsumerScope): void;
  /**
   * The transaction of an apply rolled back, or the scope changed hands: whatever memory holds for
   * it may be ahead of the database, and is rebuilt from the database on the next apply.
   */
  discard(scope: ConsumerScope): void;
}

/** A name for the scope's in-memory state: one per stream partition, whatever its epoch. */
export function scopeKey(scope: ConsumerScope): string {
  return scope.kind === 'log' ? 'log' : `stream-partition-${scope.partition}`;
}

/** Several consumers applied in order in the same transaction, as one. */
export function consumersInOrder<R extends LogEntry>(consumers: readonly RecordConsumer<R>[]): RecordConsumer<R> {
  return {
    async prepare(db, batch) {
      for (const consumer of consumers) await consumer.prepare?.(db, batch);
    },
    async apply(trx, batch) {
      for (const consumer of consumers) await consumer.apply(trx, batch);
    },
    committed(scope) {
      for (const consumer of consumers) consumer.committed?.(scope);
    },
    discard(scope) {
      for (const consumer of consumers) consumer.discard(scope);
    },
  };
}
