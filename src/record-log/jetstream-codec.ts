// How the record log looks on NATS JetStream: one stream whose subjects, <stream>.p.<n>, are its
// stream partitions, a tenant always on the same stream partition (a stable hash of its id, so
// its records keep their order), and one message carrying one or more whole requests (a request is never split, so a
// message stored is a request stored: all or nothing).
import type { RecordBatch } from './record-log.js';

/** The subject of stream partition `n`. */
export function streamPartitionSubject(stream: string, partition: number): string {
  return `${stream}.p.${partition}`;
}

/** Every subject of a stream with `count` stream partitions, in stream partition order. */
export function streamPartitionSubjects(stream: string, count: number): string[] {
  return Array.from({ length: count }, (_unused, partition) => streamPartitionSubject(stream, partition));
}

/**
 * The stream partition of a tenant: FNV-1a over its id's decimal digits, modulo the count. Fixed for
 * the life of the stream (the count is too), so every collector agrees without asking anyone.
 */
export function tenantStreamPartition(tenantId: number, count: number): number {
  let hash = 0x811c9dc5;
  for (const char of String(tenantId)) {
    hash ^= char.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % count;
}

interface WireBatch {
  t: number;
  at: number;
  r: string[];
  /** Event times; null where the record had none (NaN in a RecordBatch). */
  e: (number | null)[];
  m: (string | null)[];
}

const VERSION = 1;

export function encodeBatches(batches: RecordBatch[]): Uint8Array {
  const wire: WireBatch[] = batches.map((batch) => ({
    t: batch.tenantId,
    at: batch.receivedAt,
    r: batch.records,
    e: batch.eventTimes.map((time) => (Number.isNaN(time) ? null : time)),
    m: batch.metas,
  }));
  return Buffer.from(JSON.stringify({ v: VERSION, b: wire }));
}

/** The batches of a message; throws on a message this version cannot read (the worker role sets it aside as a dead letter). */
export function decodeBatches(data: Uint8Array): RecordBatch[] {
  const parsed = JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8')) as {
    v?: unknown;
    b?: unknown;
  } | null;
  if (parsed?.v !== VERSION || !Array.isArray(parsed.b))
    throw new Error(`record-log message of an unknown format (version ${JSON.stringify(parsed?.v)})`);
  return (parsed.b as unknown[]).map((entry, i) => {
    if (!isWireBatch(entry)) throw new Error(`record-log message with a malformed batch (batch ${i})`);
    return {
      tenantId: entry.t,
      receivedAt: entry.at,
      records: entry.r,
      eventTimes: entry.e.map((time) => time ?? Number.NaN),
      metas: entry.m,
    };
  });
}

function isWireBatch(value: unknown): value is WireBatch {
  const batch = value as Partial<WireBatch> | null;
  return (
    typeof batch === 'object' &&
    batch !== null &&
    Number.isSafeInteger(batch.t) &&
    Number.isFinite(batch.at) &&
    Array.isArray(batch.r) &&
    batch.r.every((record) => typeof record === 'string') &&
    Array.isArray(batch.e) &&
    batch.e.length === batch.r.length &&
    batch.e.every((time) => time === null || Number.isFinite(time)) &&
    Array.isArray(batch.m) &&
    batch.m.length === batch.r.length &&
    batch.m.every((meta) => meta === null || typeof meta === 'string')
  );
}
