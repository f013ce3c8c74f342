// Observations (what detection found, or what a tenant wrote through the API) and the tenants'
// requests for permission to write them.
import type { Generated } from 'kysely';

export interface ObservationsTable {
  seq: Generated<number>;
  id: string;
  tenant_id: number;
  /** Unique per tenant: a replayed record or a repeated external write never doubles it. */
  dedupe_key: string;
  /** `detection` (our engine) or `external` (written through the API). */
  source: string;
  rule_id: string;
  rule_title: string;
  rule_author: string | null;
  /** `detection`, `correlation` or `external`. */
  rule_type: string;
  level: string;
  /** JSON arrays. */
  techniques: string;
  tactics: string;
  tags: string;
  host: string | null;
  first_time: number;
  last_time: number;
  /** JSON array of record-log sequences (the triggering records). */
  record_seqs: string;
  /** JSON: the fields the rule looked at, per record. */
  evidence: string;
  created_at: number;
  /** External writes: the token or user that wrote it. */
  created_by: string | null;
}

export interface ObservationWriteRequestsTable {
  id: string;
  tenant_id: number;
  /** `pending`, `approved`, `rejected`. */
  status: string;
  service_impact: string;
  correlation: string;
  expected_volume_per_hour: number;
  requested_by: string;
  requested_at: number;
  decided_by: string | null;
  decided_at: number | null;
  decision_note: string | null;
}
