// What the collector heard, per tenant and hour (migration 0011; collector/diagnostics-store.ts).

export interface CollectorActivityTable {
  tenant_id: number;
  /** Start of the hour, epoch ms. */
  hour: number;
  /** The intake it used: `log_sink`, `otlp`, `hec` or `bulk`. */
  protocol: string;
  /** The sender's User-Agent, shortened; '' when it sent none. */
  user_agent: string;
  source_address: string;
  requests: number;
  records: number;
  last_seen_at: number;
}

export interface CollectorRejectionsTable {
  tenant_id: number;
  hour: number;
  /** The problem code the collector answered with. */
  code: string;
  count: number;
  last_at: number;
  last_source_address: string;
  last_user_agent: string;
  last_detail: string;
}
