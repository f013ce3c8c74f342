// Applying a fetched batch of one stream partition's messages: one PostgreSQL transaction holds
// the fence (the stream partition's row in log_partitions, locked, must still carry this owner's
// epoch), the records, the record log's consumers applied to them (record-log/record-consumer.ts:
// the search index, detection — the composition root's list) and the stream partition's new
// applied stream sequence. Messages at or below that sequence are skipped. A message that cannot
// be applied — it does not decode, or the database refuses its data — is a dead letter: set aside
// in log_dead_letters and passed, so one bad message never stalls its stream partition.
import { CompiledQuery, sql, type Kysely, type Transaction } from 'kysely';
import type { Tables } from '../schema.js';
import { decodeBatches } from '../../record-log/jetstream-codec.js';
import { recordColumns, recordInsert } from './record-insert.js';
import type { LoggedRecord, RecordBatch } from '../../record-log/record-log.js';
import type { ConsumerScope, RecordConsumer } from '../../record-log/record-consumer.js';

/** A dead letter keeps this much of its message, so a huge message cannot bloat the table. */
export const DEAD_LETTER_EXCERPT_CHARS = 2_000;
const REASON_CHARS = 1_000;

/** One message as fetched: its stream sequence and payload. */
export interface StreamPartitionMessage {
  seq: number;
  data: Uint8Array;
}

export interface DeadLetter {
  seq: number;
  tenantId: number | null;
  reason: string;
  data: Uint8Array;
}

export interface ApplyOutcome {
  outcome: 'applied' | 'fenced';
  skipped: number;
  records: number;
  deadLetters: DeadLetter[];
}

interface Target {
  db: Kysely<Tables>;
  stream: string;
  partition: number;
  /** How many stream partitions the stream has. */
  partitions: number;
  epoch: number;
  /** The record log's consumers, applied in the batch's transaction (in order: consumersInOrder). */
  consumer: RecordConsumer;
  /**
   * The owner's lease time: PostgreSQL ends the transaction's session once it has waited this
   * long for the owner's next statement, so an owner paused mid-batch does not hold the stream
   * partition's row (and the new owner's claim) beyond its lease.
   */
  leaseMs: number;
}

/** The scope the target's batches continue: its stream partition as held under its epoch. */
export function targetScope(target: Pick<Target, 'partition' | 'partitions' | 'epoch'>): ConsumerScope {
  return { kind: 'stream-partition', partition: target.partition, partitions: target.partitions, epoch: target.epoch };
}

/**
 * Applies the messages in one transaction. When the database refuses the batch's data, each
 * message is applied in a transaction of its own and the ones still refused become dead letters.
 */
export async function applyMessages(target: Target, messages: StreamPartitionMessage[]): Promise<ApplyOutcome> {
  try {
    return await applyInOne(target, messages, []);
  } catch (error) {
    if (!isDataError(error) || messages.length === 0) throw error;
  }
  const total: ApplyOutcome = { outcome: 'applied', skipped: 0, records: 0, deadLetters: [] };
  for (const message of messages) {
    let outcome: ApplyOutcome;
    try {
      outcome = await applyInOne(target, [message], []);
    } catch (error) {
      if (!isDataError(error)) throw error;
      const letter = {
        seq: message.seq,
        tenantId: tenantOf(message.data),
        reason: describe(error),
        data: message.data,
      };
      outcome = await applyInOne(target, [], [letter]);
    }
    if (outcome.outcome === 'fenced') return outcome;
    total.skipped += outcome.skipped;
    total.records += outcome.records;
    total.deadLetters.push(...outcome.deadLetters);
  }
  return total;
}

async function applyInOne(
  target: Target,
  messages: StreamPartitionMessage[],
  refused: DeadLetter[],
): Promise<ApplyOutcome> {
  const scope = targetScope(target);
  let outcome: ApplyOutcome;
  try {
    outcome = await target.db.transaction().execute(async (trx) => {
      await sql`SELECT set_config('idle_in_transaction_session_timeout', ${String(target.leaseMs)}, true)`.execute(trx);
      const appliedSeq = await lockPosition(trx, target);
      if (appliedSeq === undefined) return { outcome: 'fenced' as const, skipped: 0, records: 0, deadLetters: [] };
      const fresh = messages.filter((message) => message.seq > appliedSeq);
      const letters = refused.filter((letter) => letter.seq > appliedSeq);
      const batches: RecordBatch[] = [];
      for (const message of fresh) {
        try {
          batches.push(...decodeBatches(message.data));
        } catch (error) {
          letters.push({
            seq: message.seq,
            tenantId: tenantOf(message.data),
            reason: describe(error),
            data: message.data,
          });
        }
      }
      const records = await insertAll(trx, batches);
      if (records.length > 0) await target.consumer.apply(trx, { scope, records });
      await insertDeadLetters(trx, target, letters);
      const last = Math.max(0, ...fresh.map((message) => message.seq), ...letters.map((letter) => letter.seq));
      if (last > appliedSeq)
        await trx
          .updateTable('log_partitions')
          .set({ applied_seq: last, updated_at: Date.now() })
          .where('stream', '=', target.stream)
          .where('partition', '=', target.partition)
          .execute();
      return {
        outcome: 'applied' as const,
        skipped: messages.length - fresh.length,
        records: records.length,
        deadLetters: letters,
      };
    });
  } catch (error) {
    target.consumer.discard(scope);
    throw error;
  }
  // The consumers were applied exactly when records were stored.
  if (outcome.records > 0) target.consumer.committed?.(scope);
  return outcome;
}

/** The stream partition's row, locked until commit; undefined when another epoch owns it now. */
async function lockPosition(trx: Transaction<Tables>, target: Target): Promise<number | undefined> {
  const row = await trx
    .selectFrom('log_partitions')
    .select(['applied_seq', 'owner_epoch'])
    .where('stream', '=', target.stream)
    .where('partition', '=', target.partition)
    .forUpdate()
    .executeTakeFirst();
  if (row?.owner_epoch !== target.epoch) return undefined;
  return row.applied_seq;
}

/**
 * Inserts the records in one statement and returns them as stored, in order (the sequences are
 * drawn in the columns' order, so sorted they line up with the input).
 */
async function insertAll(trx: Transaction<Tables>, batches: RecordBatch[]): Promise<LoggedRecord[]> {
  const columns = recordColumns(batches);
  if (columns.records.length === 0) return [];
  await checkTenants(trx, columns.tenantIds);
  const statement = recordInsert(columns, 'seqs');
  const result = await trx.executeQuery<{ seq: string }>(CompiledQuery.raw(statement.text, statement.values));
  const seqs = result.rows.map((row) => Number(row.seq)).sort((a, b) => a - b);
  if (seqs.length !== columns.records.length)
    throw new Error(`inserted ${seqs.length} of ${columns.records.length} records`);
  return seqs.map((seq, i) => ({
    seq,
    tenantId: columns.tenantIds[i] ?? 0,
    receivedAt: columns.receivedAts[i] ?? 0,
    eventTime: columns.eventTimes[i] ?? 0,
    record: columns.records[i] ?? '',
    meta: columns.metas[i] ?? null,
    txId: '0',
  }));
}

/** A message names a tenant the database does not hold: its data is refused, like a broken reference. */
class UnknownTenant extends Error {
  override name = 'UnknownTenant';
  /** SQLSTATE foreign_key_violation: what the refusal is, whoever found it. */
  readonly code = '23503';
}

/**
 * The record log keeps no foreign key to tenants (migration 0042: its per-row check cost a third
 * of every insert), so the tenants of a batch are checked here, once each. A collector resolved
 * them, but whatever can publish to the stream can name any tenant.
 */
async function checkTenants(trx: Transaction<Tables>, tenantIds: number[]): Promise<void> {
  const named = [...new Set(tenantIds)];
  const known = await trx.selectFrom('tenants').select('id').where('id', 'in', named).execute();
  if (known.length === named.length) return;
  const found = new Set(known.map((row) => row.id));
  const missing = named.filter((id) => !found.has(id));
  throw new UnknownTenant(`no tenant ${missing.join(', ')}: the records of a tenant that does not exist are refused`);
}

async function insertDeadLetters(trx: Transaction<Tables>, target: Target, letters: DeadLetter[]): Promise<void> {
  if (letters.length === 0) return;
  await trx
    .insertInto('log_dead_letters')
    .values(
      letters.map((letter) => ({
        stream: target.stream,
        partition: target.partition,
        stream_seq: letter.seq,
        tenant_id: letter.tenantId,
        reason: letter.reason.slice(0, REASON_CHARS),
        excerpt: excerpt(letter.data),
        bytes: letter.data.byteLength,
        created_at: Date.now(),
      })),
    )
    .onConflict((oc) => oc.columns(['stream', 'partition', 'stream_seq']).doNothing())
    .execute();
}

/** The start of a message as text, without NUL (PostgreSQL text refuses it). */
function excerpt(data: Uint8Array): string {
  const head = Buffer.from(data.buffer, data.byteOffset, Math.min(data.byteLength, DEAD_LETTER_EXCERPT_CHARS * 4));
  return head.toString('utf8').replace(/\0/g, '\uFFFD').slice(0, DEAD_LETTER_EXCERPT_CHARS);
}

/** The tenant of a message that is readable enough to tell (its first batch's), else null. */
function tenantOf(data: Uint8Array): number | null {
  try {
    const parsed = JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8')) as {
      b?: { t?: unknown }[];
    };
    const tenant = Array.isArray(parsed.b) ? parsed.b[0]?.t : undefined;
    return typeof tenant === 'number' && Number.isSafeInteger(tenant) ? tenant : null;
  } catch {
    // Not JSON at all: the tenant cannot be told, which the dead letter records as null.
    return null;
  }
}

function describe(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === 'string' ? `${code}: ${message}` : message;
}

/**
 * The database refused the data itself (SQLSTATE class 22, data exception, e.g. a NUL byte in
 * text; 23, integrity, e.g. a record of a tenant deleted meanwhile; 54, program limit):
 * retrying cannot help, unlike a lost connection.
 */
export function isDataError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^(22|23|54)/.test(code);
}
