// The one error catalogue. Every error a client can see has a stable machine `code`, an HTTP
// status and a title here; `AppError` carries the code plus a detail saying what was wrong and
// where. The HTTP layer turns it into an RFC 9457 problem body; the CLI prints its detail.

export const problems = {
  // Collector body and transport
  invalid_json: { status: 400, title: 'Invalid JSON' },
  not_an_object: { status: 400, title: 'Record is not a JSON object' },
  empty_body: { status: 400, title: 'Empty body' },
  invalid_utf8: { status: 400, title: 'Body is not valid UTF-8' },
  invalid_compressed_body: { status: 400, title: 'Body could not be decompressed' },
  nesting_too_deep: { status: 400, title: 'JSON nested too deeply' },
  request_aborted: { status: 400, title: 'Request aborted' },
  invalid_otlp: { status: 400, title: 'Invalid OTLP request' },
  // A 500 because the collector documentation says so; the fault is the sender's configuration.
  forwarder_array_format: { status: 500, title: 'Could not add time to JSON', senderFault: true },
  body_too_large: { status: 413, title: 'Request body too large' },
  record_too_large: { status: 413, title: 'Record too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  unsupported_content_encoding: { status: 415, title: 'Unsupported content encoding' },
  unknown_collector: { status: 404, title: 'Unknown collector address' },
  // Splunk HTTP Event Collector intake (answered in HEC's own shape, docs/collector.md)
  hec_event_missing: { status: 400, title: 'Event field is required' },
  hec_event_blank: { status: 400, title: 'Event field cannot be blank' },
  hec_invalid_event: { status: 400, title: 'Invalid data format' },
  hec_channel_missing: { status: 400, title: 'Data channel is missing' },
  hec_channel_invalid: { status: 400, title: 'Invalid data channel' },
  hec_query_token: { status: 400, title: 'Query string authorization is not enabled' },
  ingest_key_required: { status: 401, title: 'Ingest key required' },
  invalid_ingest_key: { status: 401, title: 'Invalid ingest key' },
  overloaded: { status: 503, title: 'Collector is busy' },
  rate_limited: { status: 429, title: 'Ingest limit reached' },
  request_exceeds_burst: { status: 413, title: 'Request larger than the ingest burst' },
  // What the HTTP parser refuses before any route sees the request
  malformed_request: { status: 400, title: 'Malformed HTTP request' },
  headers_too_large: { status: 431, title: 'Request headers too large' },
  request_timeout: { status: 408, title: 'Request timeout' },
  storage_unavailable: { status: 503, title: 'Storage unavailable' },
  // Tenants
  invalid_code_name: { status: 400, title: 'Invalid code name' },
  tenant_exists: { status: 409, title: 'Tenant already exists' },
  tenant_not_found: { status: 404, title: 'Tenant not found' },
  // Partner organisations (managed security providers)
  partner_exists: { status: 409, title: 'Partner already exists' },
  partner_not_found: { status: 404, title: 'Partner not found' },
  partner_token_refused: { status: 403, title: 'Not possible with a partner token' },
  // Identity and access
  unauthenticated: { status: 401, title: 'Authentication required' },
  invalid_credentials: { status: 401, title: 'Invalid credentials' },
  token_expired: { status: 401, title: 'Token expired' },
  token_revoked: { status: 401, title: 'Token deleted' },
  session_expired: { status: 401, title: 'Session expired' },
  too_many_failed_attempts: { status: 429, title: 'Too many failed attempts' },
  csrf_token_invalid: { status: 403, title: 'CSRF token missing or invalid' },
  permission_denied: { status: 403, title: 'Permission denied' },
  operator_required: { status: 403, title: 'Platform operator required' },
  observation_write_not_approved: { status: 403, title: 'Observation writing not approved for this tenant' },
  tenant_required: { status: 400, title: 'Tenant not named' },
  invalid_permission: { status: 400, title: 'Unknown permission' },
  invalid_cursor: { status: 400, title: 'Invalid cursor' },
  user_exists: { status: 409, title: 'User already exists' },
  user_change_refused: { status: 409, title: 'Change to this user refused' },
  invalid_code: { status: 404, title: 'Invalid or expired code' },
  second_factor_required: { status: 401, title: 'Second-factor code required' },
  tenant_choice_required: { status: 401, title: 'Choose the tenant to sign in to' },
  invalid_second_factor_code: { status: 401, title: 'Second-factor code is wrong' },
  second_factor_already_enabled: { status: 409, title: 'Second factor already turned on' },
  second_factor_not_enabled: { status: 409, title: 'Second factor not turned on' },
  password_incorrect: { status: 403, title: 'Password is wrong' },
  session_required: { status: 403, title: 'Only a signed-in person can do this' },
  no_ingest_key: { status: 409, title: 'No ingest key to require' },
  sso_not_configured: { status: 404, title: 'Single sign-on not configured' },
  sso_discovery_failed: { status: 422, title: 'Identity provider discovery failed' },
  sso_domain_not_verified: { status: 422, title: 'Email domain not verified' },
  sso_link_not_pending: { status: 404, title: 'No single sign-on link to confirm' },
  sso_link_needs_sign_in: { status: 403, title: 'Sign in with your password to confirm the link' },
  // Detection and observations
  observation_rate_limited: { status: 429, title: 'Approved observation volume exceeded' },
  review_request_pending: { status: 409, title: 'A review request is already pending' },
  review_request_decided: { status: 409, title: 'Review request already decided' },
  tenant_admin_required: { status: 403, title: 'Tenant admin required' },
  // Cases and devices
  invalid_status_transition: { status: 409, title: 'Status change not allowed' },
  version_conflict: { status: 409, title: 'Case changed since it was read' },
  resolution_required: { status: 400, title: 'Closing needs a resolution' },
  unknown_assignee: { status: 400, title: 'Unknown assignee' },
  not_comment_author: { status: 403, title: 'Not the comment author' },
  invalid_merge: { status: 400, title: 'Cases cannot be merged' },
  invalid_observable: { status: 400, title: 'Invalid observable' },
  observable_exists: { status: 409, title: 'The case already holds this observable' },
  observable_limit_reached: { status: 409, title: 'The case holds as many observables as it may' },
  invalid_device_action: { status: 409, title: 'Response action not possible now' },
  device_action_decided: { status: 409, title: 'Response action already has its outcome' },
  // Case templates, tasks and SLAs
  template_name_taken: { status: 409, title: 'A case template has that name' },
  too_many_templates: { status: 409, title: 'Case template limit reached' },
  too_many_tasks: { status: 409, title: 'Task limit reached for this case' },
  required_tasks_open: { status: 409, title: 'Required tasks are still open' },
  // Webhooks
  invalid_webhook_url: { status: 400, title: 'Invalid webhook URL' },
  webhook_address_refused: { status: 400, title: 'Webhook address not allowed' },
  // AI case summaries
  ai_summaries_disabled: { status: 403, title: 'AI summaries are turned off for this tenant' },
  summary_not_generated: { status: 404, title: 'No summary generated for this case' },
  summary_provider_not_configured: { status: 503, title: 'Summary provider not configured' },
  provider_error: { status: 502, title: 'Summary provider failed' },
  provider_timeout: { status: 504, title: 'Summary provider timed out' },
  // Moving an embedded deployment into PostgreSQL (sightline data migrate)
  move_target_not_empty: { status: 409, title: 'The target database holds another deployment' },
  move_verification_failed: { status: 500, title: 'The moved data does not match its source' },
  // Importing a Sigma rule package (sightline rules import)
  rule_package_invalid: { status: 422, title: 'Rule package unreadable' },
  rule_package_unsafe_entry: { status: 422, title: 'Rule package entry refused' },
  rule_package_too_large: { status: 413, title: 'Rule package over a limit' },
  rule_package_empty: { status: 422, title: 'Rule package has no loadable rule' },
  // Telemetry search
  invalid_query: { status: 400, title: 'Invalid query' },
  // Questions in plain words in the telemetry search (docs/search.md)
  ai_provider_not_configured: { status: 503, title: 'No language model configured' },
  question_not_understood: { status: 422, title: 'Question not turned into a query' },
  // Retention, backup and restore
  retention_out_of_range: { status: 400, title: 'Retention outside the allowed range' },
  backup_target_not_empty: { status: 409, title: 'Target directory is not empty' },
  backup_invalid: { status: 422, title: 'Backup is incomplete or damaged' },
  backup_unsupported: { status: 400, title: 'Backup not supported for this database' },
  // Generic
  invalid_request: { status: 400, title: 'Invalid request' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  web_ui_not_built: { status: 503, title: 'Web UI not built' },
  internal_error: { status: 500, title: 'Internal server error' },
} as const satisfies Record<string, { status: number; title: string; senderFault?: boolean }>;

export type ProblemCode = keyof typeof problems;

export class AppError extends Error {
  override name = 'AppError';
  readonly status: number;
  readonly title: string;
  /** The sender's mistake even when the status is 5xx: counted, not logged as a server error. */
  readonly senderFault: boolean;

  /** Extra members of the problem body (e.g. `line`, `limit_bytes`). */
  readonly extensions: Record<string, unknown>;
  /** Response headers the error requires (e.g. `Retry-After`). */
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ProblemCode,
    readonly detail: string,
    options: { extensions?: Record<string, unknown>; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = problems[code].status;
    this.title = problems[code].title;
    this.senderFault = 'senderFault' in problems[code];
    this.extensions = options.extensions ?? {};
    this.headers = options.headers ?? {};
  }
}

/** What went wrong, for a message: an Error's message, anything else thrown as its text. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A 503 telling the sender to retry shortly: the one answer every memory limit gives. */
export function overloaded(detail: string): AppError {
  return new AppError('overloaded', `${detail}; retry after the delay given`, { headers: { 'Retry-After': '1' } });
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ProblemCode;
  [extension: string]: unknown;
}

export function problemType(code: ProblemCode): string {
  return `urn:sightline:problem:${code}`;
}

export function toProblem(error: AppError, instance?: string): ProblemBody {
  return {
    type: problemType(error.code),
    title: error.title,
    status: error.status,
    detail: error.detail,
    code: error.code,
    ...(instance ? { instance } : {}),
    ...error.extensions,
  };
}
