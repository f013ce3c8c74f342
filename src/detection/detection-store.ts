// Detection's own tables: the records it could not evaluate, and the correlation engine's
// state. Both are written inside detection's chunk transaction (pipeline/detection-commit.ts),
// with the observations and the log position, so a crash redoes the chunk or none of it.
import type { Kysely, Transaction } from 'kysely';
import type { Tables } from '../storage/schema.js';

/** Rows per INSERT statement: well under SQLite's and PostgreSQL's bound-parameter limits. */
const ROWS_PER_STATEMENT = 200;

/** Bounded so a pathological error cannot bloat the table. */
const MAX_ERROR_LENGTH = 1_000;

function failureMessage(error: unknown): string {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return message.slice(0, MAX_ERROR_LENGTH);
}

export async function recordDetectionFailures(
  trx: Transaction<Tables>,
  failures: readonly { seq: number; tenantId: number; error: unknown }[],
  now: number,
): Promise<void> {
  for (const chunk of chunks(failures)) {
    await trx
      .insertInto('detection_failures')
      .values(
        chunk.map((failure) => ({
          record_seq: failure.seq,
          tenant_id: failure.tenantId,
          error: failureMessage(failure.error),
          failed_at: now,
        })),
      )
      .onConflict((oc) => oc.column('record_seq').doNothing())
      .execute();
  }
}

export async function saveCorrelationState(
  trx: Transaction<Tables>,
  changes: readonly { key: string; value: string | null }[],
  now: number,
): Promise<void> {
  const deleted = changes.filter((change) => change.value === null).map((change) => change.key);
  for (const keys of chunks(deleted)) await trx.deleteFrom('correlation_state').where('key', 'in', keys).execute();
  const upserts = changes.filter((change): change is { key: string; value: string } => change.value !== null);
  for (const chunk of chunks(upserts)) {
    await trx
      .insertInto('correlation_state')
      .values(chunk.map((change) => ({ key: change.key, value: change.value, updated_at: now })))
      .onConflict((oc) =>
        oc.column('key').doUpdateSet({
          value: (eb) => eb.ref('excluded.value'),
          updated_at: (eb) => eb.ref('excluded.updated_at'),
        }),
      )
      .execute();
  }
}

/**
 * The saved correlation state (windows and watermarks), of every tenant or of the tenants given
 * (a stream partition's): each key starts with its tenant id, `<tenant>:…`.
 */
export async function loadCorrelationState(
  db: Kysely<Tables>,
  tenantIds?: readonly number[],
): Promise<{ key: string; value: string }[]> {
  if (tenantIds?.length === 0) return [];
  let query = db.selectFrom('correlation_state').select(['key', 'value']);
  if (tenantIds)
    query = query.where((eb) => eb.or(tenantIds.map((tenantId) => eb('key', 'like', `${Math.trunc(tenantId)}:%`))));
  return query.orderBy('key').execute();
}

function* chunks<T>(items: readonly T[]): Generator<T[]> {
  for (let i = 0; i < items.length; i += ROWS_PER_STATEMENT) yield items.slice(i, i + ROWS_PER_STATEMENT);
}
