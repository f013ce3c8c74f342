// The detection engine's own tables: correlation rules' running state, and the records it could
// not normalise or evaluate (kept so they can be looked at and reprocessed).

/** One row per (tenant, correlation rule, group): the rule's sliding-window state, as JSON. */
export interface CorrelationStateTable {
  key: string;
  value: string;
  updated_at: number;
}

export interface DetectionFailuresTable {
  record_seq: number;
  tenant_id: number;
  /** The error's message (capped), never the record's content. */
  error: string;
  failed_at: number;
}

/** Per tenant, a logsource its telemetry produced (absent parts are ''), epoch ms. */
export interface LogsourceSightingsTable {
  tenant_id: number;
  product: string;
  category: string;
  service: string;
  first_seen: number;
  last_seen: number;
}
