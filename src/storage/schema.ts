// The Kysely view of every table. Each feature owns its tables' rows and store, and their types
// live in tables/, one file per feature; this file gathers them so one Kysely instance serves all.
import type {
  Role,
  TenantsTable,
  UsersTable,
  SessionsTable,
  UserCodesTable,
  ApiTokensTable,
  AuditEventsTable,
} from './tables/identity.js';
import type {
  TelemetryRecordsTable,
  LogCursorsTable,
  LogPartitionsTable,
  LogWorkersTable,
  LogDeadLettersTable,
} from './tables/record-log.js';
import type { EndpointProcessEventsTable, NetworkProcessEventsTable } from './tables/telemetry.js';
import type { CorrelationStateTable, DetectionFailuresTable, LogsourceSightingsTable } from './tables/detection.js';
import type { ExportCursorsTable } from './tables/export.js';
import type {
  CaseTasksTable,
  CaseTemplatesTable,
  CaseTemplateUsesTable,
  SlaPoliciesTable,
} from './tables/case-work.js';
import type { ObservationsTable, ObservationWriteRequestsTable } from './tables/observations.js';
import type { Criticality, DevicesTable, DeviceAddressesTable } from './tables/devices.js';
import type {
  CaseCountersTable,
  CasesTable,
  CaseObservationsTable,
  CaseDevicesTable,
  CaseTechniquesTable,
  CaseTagsTable,
  CaseCommentsTable,
  CaseHistoryTable,
} from './tables/cases.js';
import type { CaseObservablesTable } from './tables/case-observables.js';
import type { InstanceSettingsTable } from './tables/instance.js';
import type { CollectorActivityTable, CollectorRejectionsTable } from './tables/collector.js';
import type { UnrecognisedShapesTable } from './tables/unrecognised.js';
import type { CaseSummariesTable, SummaryCacheTable, SummaryFeedbackTable } from './tables/summaries.js';
import type { SecondFactorsTable, RecoveryCodesTable } from './tables/second-factor.js';
import type { CollectorIngestPoliciesTable, IngestKeysTable } from './tables/ingest-keys.js';
import type { SsoConfigsTable, SsoDomainsTable, SsoLinksTable } from './tables/sso.js';
import type {
  AccountThrottleTable,
  AuthFailuresTable,
  DataMoveProgressTable,
  IngestKeyVersionsTable,
} from './tables/shared-state.js';
import type { SavedSearchesTable } from './tables/saved-searches.js';
import type { CollectorNodesTable, TenantIngestLimitsTable } from './tables/ingest-limits.js';
import type { WebhookDeliveriesTable, WebhookEventsTable, WebhookSubscriptionsTable } from './tables/webhooks.js';
import type { DeviceActionsTable } from './tables/device-actions.js';
import type { RetentionLeasesTable, RetentionLimitsTable, TenantRetentionTable } from './tables/retention.js';
import type { PartnersTable, PartnerTenantsTable, PartnerTokensTable } from './tables/partners.js';

export type {
  InstanceSettingsTable,
  CollectorActivityTable,
  CollectorRejectionsTable,
  Role,
  TenantsTable,
  UsersTable,
  SessionsTable,
  UserCodesTable,
  ApiTokensTable,
  AuditEventsTable,
  TelemetryRecordsTable,
  LogCursorsTable,
  EndpointProcessEventsTable,
  NetworkProcessEventsTable,
  CorrelationStateTable,
  DetectionFailuresTable,
  LogsourceSightingsTable,
  ObservationsTable,
  ObservationWriteRequestsTable,
  Criticality,
  DevicesTable,
  DeviceAddressesTable,
  CaseCountersTable,
  CasesTable,
  CaseObservationsTable,
  CaseDevicesTable,
  CaseTechniquesTable,
  CaseTagsTable,
  CaseCommentsTable,
  CaseHistoryTable,
  CaseObservablesTable,
  CaseSummariesTable,
  SummaryCacheTable,
  SummaryFeedbackTable,
  SecondFactorsTable,
  RecoveryCodesTable,
  IngestKeysTable,
  CollectorIngestPoliciesTable,
  SsoConfigsTable,
  SsoDomainsTable,
  SsoLinksTable,
  AuthFailuresTable,
  AccountThrottleTable,
  IngestKeyVersionsTable,
  DataMoveProgressTable,
  SavedSearchesTable,
  WebhookSubscriptionsTable,
  WebhookEventsTable,
  WebhookDeliveriesTable,
  DeviceActionsTable,
  TenantRetentionTable,
  RetentionLimitsTable,
  RetentionLeasesTable,
  TenantIngestLimitsTable,
  CollectorNodesTable,
  ExportCursorsTable,
  PartnersTable,
  PartnerTenantsTable,
  PartnerTokensTable,
};

export interface Tables {
  tenants: TenantsTable;
  telemetry_records: TelemetryRecordsTable;
  log_cursors: LogCursorsTable;
  log_partitions: LogPartitionsTable;
  log_workers: LogWorkersTable;
  log_dead_letters: LogDeadLettersTable;
  users: UsersTable;
  sessions: SessionsTable;
  user_codes: UserCodesTable;
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
  case_observables: CaseObservablesTable;
  case_summaries: CaseSummariesTable;
  summary_cache: SummaryCacheTable;
  summary_feedback: SummaryFeedbackTable;
  instance_settings: InstanceSettingsTable;
  collector_activity: CollectorActivityTable;
  collector_rejections: CollectorRejectionsTable;
  second_factors: SecondFactorsTable;
  recovery_codes: RecoveryCodesTable;
  ingest_keys: IngestKeysTable;
  collector_ingest_policies: CollectorIngestPoliciesTable;
  sso_configs: SsoConfigsTable;
  sso_links: SsoLinksTable;
  sso_domains: SsoDomainsTable;
  auth_failures: AuthFailuresTable;
  account_throttle: AccountThrottleTable;
  ingest_key_versions: IngestKeyVersionsTable;
  data_move_progress: DataMoveProgressTable;
  saved_searches: SavedSearchesTable;
  webhook_subscriptions: WebhookSubscriptionsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  device_actions: DeviceActionsTable;
  tenant_retention: TenantRetentionTable;
  retention_limits: RetentionLimitsTable;
  retention_leases: RetentionLeasesTable;
  unrecognised_shapes: UnrecognisedShapesTable;
  logsource_sightings: LogsourceSightingsTable;
  tenant_ingest_limits: TenantIngestLimitsTable;
  collector_nodes: CollectorNodesTable;
  export_cursors: ExportCursorsTable;
  case_templates: CaseTemplatesTable;
  case_tasks: CaseTasksTable;
  case_template_uses: CaseTemplateUsesTable;
  sla_policies: SlaPoliciesTable;
  partners: PartnersTable;
  partner_tenants: PartnerTenantsTable;
  partner_tokens: PartnerTokensTable;
}
