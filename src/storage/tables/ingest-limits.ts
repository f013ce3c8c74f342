// Per-tenant collector ingest limits and the collector nodes sharing them (migration 0051;
// collector/ingest-limits/ingest-limit-store.ts).

/** A tenant without a row has no limits; a null rate turns that one limit off. */
export interface TenantIngestLimitsTable {
  tenant_id: number;
  records_per_second: number | null;
  records_burst: number | null;
  /** Decoded (decompressed) body bytes. */
  bytes_per_second: number | null;
  bytes_burst: number | null;
  updated_at: number;
  /** Who set them: an email, a token's name, or `cli`. */
  updated_by: string;
}

/** One row per running collector process, refreshed every few seconds while it runs. */
export interface CollectorNodesTable {
  node_id: string;
  last_seen: number;
}
