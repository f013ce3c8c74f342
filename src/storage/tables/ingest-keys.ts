// Collector ingest keys and each tenant's policy on requiring them (migration 0014;
// collector/ingest-key-store.ts).

export interface IngestKeysTable {
  /** `ikey_…` */
  id: string;
  tenant_id: number;
  name: string;
  /** SHA-256 of the key (hex). The key itself is never stored. */
  key_hash: string;
  /** The key's first characters (`sli_` and four more), so people can tell keys apart. */
  key_prefix: string;
  created_at: number;
  /** Who created it: an email, a token's name, or `cli`. */
  created_by: string;
  /** Epoch ms after which the key no longer opens the collector; null: never. */
  expires_at: number | null;
  /** Written at most once a minute per key, not per request. */
  last_used_at: number | null;
}

/** A tenant without a row has the default: no key required. */
export interface CollectorIngestPoliciesTable {
  tenant_id: number;
  /** 1: POST /log_sink needs one of the tenant's ingest keys; 0: it needs none. */
  require_ingest_key: number;
  updated_at: number;
  updated_by: string;
}
