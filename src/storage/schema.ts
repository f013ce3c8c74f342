// The Kysely view of every table. Each feature owns its tables' rows and store; this file only
// gathers their types so that one Kysely instance can serve them all.
import type { Generated } from 'kysely';

export interface TenantsTable {
  id: Generated<number>;
  code_name: string;
  name: string;
  /** Epoch milliseconds. */
  created_at: number;
  /** JSON object text. */
  settings: string;
  /** Epoch ms when the platform approved this tenant writing observations; null: not approved. */
  observation_write_approved_at: number | null;
  /** Observations the tenant may write per hour once approved (the approved volume). */
  observation_write_limit_per_hour: number | null;
  /** 1: AI summaries available; 0: opted out (seed rule 6). */
  ai_summaries_enabled: Generated<number>;
  /** Operator override of the summary provider; null: the deployment's. */
  summary_provider: string | null;
}

export type Role = 'operator' | 'admin' | 'analyst' | 'viewer';

/** People. Operators belong to no tenant (tenant_id null) and act across tenants. */
export interface UsersTable {
  id: string;
  tenant_id: number | null;
  /** Lower-cased; unique across the platform. */
  email: string;
  name: string;
  role: Role;
  /** scrypt, self-describing: `scrypt$N$r$p$salt$hash`. */
  password_hash: string;
  created_at: number;
  disabled_at: number | null;
}

/** Web sessions; `id` is the SHA-256 of the cookie value, never the value itself. */
export interface SessionsTable {
  id: string;
  user_id: string;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
  ip: string;
  user_agent: string;
}

export interface ApiTokensTable {
  id: string;
  tenant_id: number;
  name: string;
  /** SHA-256 of the token value (hex). The value itself is never stored. */
  token_hash: string;
  /** The value's last four characters, so people can tell their tokens apart. */
  token_hint: string;
  /** JSON array of permission names. */
  permissions: string;
  created_by_user_id: string | null;
  /** Who created it, as shown in the token list: an email, or `cli`. */
  created_by: string;
  created_at: number;
  expires_at: number | null;
  deleted_at: number | null;
  deleted_by: string | null;
  last_used_at: number | null;
  last_used_ip: string | null;
}

export interface AuditEventsTable {
  seq: Generated<number>;
  id: string;
  /** Null for events not tied to a tenant (e.g. a failed login for an unknown email). */
  tenant_id: number | null;
  occurred_at: number;
  action: string;
  outcome: 'success' | 'failure';
  actor_type: 'user' | 'token' | 'cli' | 'system' | 'anonymous';
  actor_id: string | null;
  actor_label: string;
  ip: string | null;
  target_type: string | null;
  target_id: string | null;
  /** JSON object text. */
  details: string;
}

/** The record log: one row per accepted record, in commit order (`seq`). */
export interface TelemetryRecordsTable {
  seq: Generated<number>;
  tenant_id: number;
  /** Server receive time, epoch milliseconds. */
  received_at: number;
  /** The record's own time when it carried a parseable one, else the receive time. */
  event_time: number;
  /** The record as stored: one JSON object, as text. */
  record: string;
  /** Transport metadata (container-runtime stream/time/logtag), JSON object text or null. */
  meta: string | null;
}

/** Where each follower of the record log has got to (last sequence fully processed). */
export interface LogCursorsTable {
  name: string;
  seq: number;
  /** PostgreSQL followers that read in (transaction id, seq) order keep the xid8 here, as text. */
  tx_id: string | null;
}

/** The endpoint-process table of the seed: one row per process-creation record. */
export interface EndpointProcessEventsTable {
  id: Generated<number>;
  tenant_id: number;
  /** The device the host names (null for rows written before devices existed). */
  device_id: string | null;
  /** The raw record's sequence in the record log. */
  record_seq: number;
  event_time: number;
  host: string | null;
  endpoint_id: string | null;
  user_name: string | null;
  process_name: string | null;
  pid: number | null;
  parent_process_name: string | null;
  parent_pid: number | null;
  executable_path: string | null;
  parent_executable_path: string | null;
  command_line: string | null;
  parent_command_line: string | null;
  source_format: string;
}

/** The network-process table of the seed: one row per network-connection record. */
export interface NetworkProcessEventsTable {
  id: Generated<number>;
  tenant_id: number;
  device_id: string | null;
  record_seq: number;
  event_time: number;
  host: string | null;
  endpoint_id: string | null;
  user_name: string | null;
  process_name: string | null;
  pid: number | null;
  executable_path: string | null;
  source_ip: string | null;
  source_port: number | null;
  destination_ip: string | null;
  destination_port: number | null;
  destination_hostname: string | null;
  protocol: string | null;
  direction: string | null;
  source_format: string;
}

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

export type Criticality = 'low' | 'medium' | 'high' | 'critical';

export interface DevicesTable {
  seq: Generated<number>;
  id: string;
  tenant_id: number;
  /** The host name lower-cased: what identifies the device within the tenant. */
  host_key: string;
  host_name: string;
  /** Defaults: '' and 'medium'. */
  description: Generated<string>;
  criticality: Generated<Criticality>;
  last_user: string | null;
  endpoint_id: string | null;
  os: string | null;
  kubernetes_namespace: string | null;
  first_seen: number;
  last_seen: number;
  updated_at: number;
}

export interface DeviceAddressesTable {
  device_id: string;
  ip: string;
  tenant_id: number;
  /** `public`, or why it was not looked up: `private`, `loopback`, `link_local`, `reserved`, … */
  scope: string;
  country_code: string | null;
  country: string | null;
  city: string | null;
  first_seen: number;
  last_seen: number;
}

export interface CaseCountersTable {
  tenant_id: number;
  last_number: number;
}

export interface CasesTable {
  seq: Generated<number>;
  id: string;
  tenant_id: number;
  number: number;
  title: string;
  description: string;
  score: number;
  severity: string;
  /** 1 once a person set the severity: grouping no longer raises it. */
  severity_manual: number;
  status: string;
  resolution: string | null;
  closing_comment: string | null;
  assignee_id: string | null;
  /** What grouping matched on: `device:<id>`, `device:<id>:rule:<rule>` or `rule:<rule>:<source>`. */
  group_key: string;
  observation_count: number;
  max_level: string;
  /** JSON: [{id, title, level, count}] of the rules behind the observations. */
  rules: string;
  /** JSON arrays. */
  techniques: string;
  tactics: string;
  tags: string;
  /** Lower-cased number, title, description, hosts and tags, for the free-text filter. */
  search_text: string;
  merged_into: string | null;
  version: number;
  created_at: number;
  updated_at: number;
  first_observation_at: number;
  last_observation_at: number;
  closed_at: number | null;
}

export interface CaseObservationsTable {
  observation_id: string;
  case_id: string;
  tenant_id: number;
  added_at: number;
}

export interface CaseDevicesTable {
  case_id: string;
  device_id: string;
  tenant_id: number;
}

export interface CaseTechniquesTable {
  case_id: string;
  technique: string;
  tenant_id: number;
}

export interface CaseTagsTable {
  case_id: string;
  tag: string;
  tenant_id: number;
}

export interface CaseCommentsTable {
  seq: Generated<number>;
  id: string;
  case_id: string;
  tenant_id: number;
  author_type: string;
  author_id: string;
  author_label: string;
  body: string;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

export interface CaseHistoryTable {
  seq: Generated<number>;
  case_id: string;
  tenant_id: number;
  at: number;
  actor_type: string;
  actor_id: string | null;
  actor_label: string;
  action: string;
  /** JSON object: field → {from, to}, or the action's details. */
  changes: string;
}

export interface CaseSummariesTable {
  id: string;
  case_id: string;
  tenant_id: number;
  /** Markdown, checked (see summaries/summary-check.ts). */
  text: string;
  /** JSON: [{key, heading, markdown}]. */
  sections: string;
  /** JSON array of cited observation ids. */
  citations: string;
  /** JSON array of {code, detail}: what the check dropped or added. */
  flags: string;
  provider: string;
  model: string;
  is_llm: number;
  prompt_version: string;
  fingerprint: string;
  from_cache: number;
  generated_at: number;
  /** Internal user id (or token id) of who asked. */
  requested_by: string;
  requested_by_label: string;
  input_tokens: number;
  output_tokens: number;
  latency_ms: number;
  /** JSON: what the case looked like when generated (observations, status, devices), for `stale`. */
  basis: string;
}

export interface SummaryCacheTable {
  fingerprint: string;
  tenant_id: number;
  provider: string;
  model: string;
  prompt_version: string;
  /** JSON {system, user}. */
  input: string;
  output: string;
  input_tokens: number;
  output_tokens: number;
  latency_ms: number;
  created_at: number;
  expires_at: number;
}

export interface SummaryFeedbackTable {
  summary_id: string;
  user_id: string;
  tenant_id: number;
  rating: string;
  comment: string | null;
  created_at: number;
  updated_at: number;
}

export interface Tables {
  tenants: TenantsTable;
  telemetry_records: TelemetryRecordsTable;
  log_cursors: LogCursorsTable;
  users: UsersTable;
  sessions: SessionsTable;
  api_tokens: ApiTokensTable;
  audit_events: AuditEventsTable;
  endpoint_process_events: EndpointProcessEventsTable;
  network_process_events: NetworkProcessEventsTable;
  observations: ObservationsTable;
  correlation_state: CorrelationStateTable;
  detection_failures: DetectionFailuresTable;
  observation_write_requests: ObservationWriteRequestsTable;
  devices: DevicesTable;
  device_addresses: DeviceAddressesTable;
  case_counters: CaseCountersTable;
  cases: CasesTable;
  case_observations: CaseObservationsTable;
  case_devices: CaseDevicesTable;
  case_techniques: CaseTechniquesTable;
  case_tags: CaseTagsTable;
  case_comments: CaseCommentsTable;
  case_history: CaseHistoryTable;
  case_summaries: CaseSummariesTable;
  summary_cache: SummaryCacheTable;
  summary_feedback: SummaryFeedbackTable;
}
