// Telemetry retention: each tenant's policy and legal hold, what the purger last measured, the
// operator's allowed range, and the lease that lets one node purge at a time.

/** One row per tenant that has a policy, a hold or a measurement; absent: the defaults apply. */
export interface TenantRetentionTable {
  tenant_id: number;
  /** Days raw telemetry is kept; null: the deployment's default. */
  telemetry_days: number | null;
  /** 1: purging is suspended for the tenant (SQLite has no booleans). */
  legal_hold: number;
  legal_hold_reason: string | null;
  updated_at: number;
  updated_by: string;
  /** Records purged for the tenant since the deployment began. */
  purged_records: number;
  last_purge_at: number | null;
  /** Last usage measurement: raw records kept, their bytes, the oldest receive time. */
  stored_records: number | null;
  stored_bytes: number | null;
  oldest_received_at: number | null;
  measured_at: number | null;
}

/** The single row (id 1) of the operator's limits. */
export interface RetentionLimitsTable {
  id: number;
  min_days: number;
  max_days: number;
  default_days: number;
  updated_at: number;
  updated_by: string;
}

/** Leases for work one node does at a time (`purger`). */
export interface RetentionLeasesTable {
  name: string;
  holder: string;
  expires_at: number;
}
