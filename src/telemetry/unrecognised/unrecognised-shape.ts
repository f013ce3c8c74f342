// Records no parser recognises, told apart by their source shape: the sorted names of their
// top-level keys (the collector only takes JSON objects, so the key set is what distinguishes a
// new forwarder's format). Detection tallies a chunk's unrecognised records in memory here and
// the chunk's commit adds the tallies up in SQL, so several scale-out workers count correctly.
// The limits are docs/collector.md's (Settings › Collector, "Records no parser recognises").

export const SHAPE_LIMITS = {
  /** Top-level keys named in a shape; more are counted as "+N more". */
  maxKeys: 24,
  /** Characters kept of each key name. */
  maxKeyLength: 48,
  /** Characters kept of the sample record (JSON text). */
  maxSampleLength: 1_000,
  /** Shapes kept per tenant; records of further shapes are counted under OVERFLOW_SHAPE. */
  maxShapesPerTenant: 200,
};

/** The shape that stands for every shape past the per-tenant limit. */
export const OVERFLOW_SHAPE = '(more shapes than are kept)';

/** Values of keys that look like credentials never reach the sample. */
const SECRET_KEY = /pass(word|wd)?|secret|token|api[-_]?key|auth|cookie|credential|private[-_]?key|session/i;
const REDACTED = '[redacted]';

export interface UnrecognisedTally {
  tenantId: number;
  shape: string;
  keys: string[];
  records: number;
  /** Receive times, epoch ms. */
  firstSeen: number;
  lastSeen: number;
  /** The newest record of the shape, redacted and truncated JSON text. */
  sample: string;
}

/** The record's shape: its top-level key names, sorted, bounded in number and length. */
export function shapeKeys(record: Record<string, unknown>): string[] {
  const names = Object.keys(record).sort();
  const kept = names.slice(0, SHAPE_LIMITS.maxKeys).map((name) => name.slice(0, SHAPE_LIMITS.maxKeyLength));
  if (names.length > SHAPE_LIMITS.maxKeys) kept.push(`+${names.length - SHAPE_LIMITS.maxKeys} more`);
  return kept;
}

export function shapeName(keys: readonly string[]): string {
  return keys.length === 0 ? '(no keys)' : keys.join(',');
}

/** The record as JSON with credential-like values replaced, cut to the sample length. */
export function sampleOf(record: Record<string, unknown>): string {
  const text = JSON.stringify(record, (key, value: unknown) =>
    key !== '' && SECRET_KEY.test(key) && value !== null && typeof value !== 'object' ? REDACTED : value,
  );
  return text.length <= SHAPE_LIMITS.maxSampleLength ? text : `${text.slice(0, SHAPE_LIMITS.maxSampleLength)}…`;
}

/** One chunk's unrecognised records, per tenant and shape; the sample is made once per shape. */
export class UnrecognisedCounter {
  private readonly tallies = new Map<string, UnrecognisedTally & { record: Record<string, unknown> }>();

  add(tenantId: number, record: Record<string, unknown>, receivedAt: number): void {
    const keys = shapeKeys(record);
    const shape = shapeName(keys);
    const id = `${tenantId}\u0000${shape}`;
    const tally = this.tallies.get(id);
    if (tally === undefined) {
      this.tallies.set(id, {
        tenantId,
        shape,
        keys,
        records: 1,
        firstSeen: receivedAt,
        lastSeen: receivedAt,
        sample: '',
        record,
      });
      return;
    }
    tally.records += 1;
    if (receivedAt < tally.firstSeen) tally.firstSeen = receivedAt;
    if (receivedAt >= tally.lastSeen) {
      tally.lastSeen = receivedAt;
      tally.record = record;
    }
  }

  take(): UnrecognisedTally[] {
    const out = [...this.tallies.values()].map(({ record, ...tally }) => ({ ...tally, sample: sampleOf(record) }));
    this.tallies.clear();
    return out;
  }
}
