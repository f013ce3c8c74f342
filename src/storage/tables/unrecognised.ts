// Records no parser recognised, per tenant and source shape (migration 0034;
// telemetry/unrecognised/unrecognised-store.ts).

export interface UnrecognisedShapesTable {
  tenant_id: number;
  /** The sorted top-level key names joined by commas (bounded), or the overflow shape. */
  shape: string;
  /** The same names as a JSON array of strings. */
  keys: string;
  records: number;
  /** Receive times, epoch ms. */
  first_seen_at: number;
  last_seen_at: number;
  /** The newest record of the shape: JSON text, credential-like values redacted, truncated. */
  sample: string;
}
