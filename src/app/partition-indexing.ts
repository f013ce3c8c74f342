// What a scale-out worker derives from a batch inside its apply transaction: the search index
// entries of its records, so a committed record is always searchable however many workers
// insert at once (a cursor following the log by sequence could pass a record still being
// written by another worker). Detection follows the telemetry table on the worker holding the
// detection lease (app.ts).
import type { Transaction } from 'kysely';
import type { Tables } from '../storage/schema.js';
import type { AppliedBatch, BatchApplier } from '../record-log/partition-apply.js';
import { indexStoredRecords } from '../telemetry/postgres-search-indexer.js';

export class PartitionIndexing implements BatchApplier {
  async apply(trx: Transaction<Tables>, batch: AppliedBatch): Promise<void> {
    await indexStoredRecords(
      trx,
      batch.records.map((record) => record.seq),
    );
  }

  discard(): void {
    // Nothing is kept in memory between batches.
  }
}
