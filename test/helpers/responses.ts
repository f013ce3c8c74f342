// The shapes suites type their API answers with (see ApiResponse in api.ts) where several
// suites read the same endpoint: a page of a list endpoint, the case search, readiness. The
// items are the services' own view types; an answer one suite alone reads is typed there.
import type { Static } from 'typebox';
import type { CaseView, getCaseDetail } from '../../src/cases/case-service.js';
import type { MeSchema, SessionSchema } from '../../src/identity/sessions/auth-routes.js';
import type { ApiToken } from '../../src/identity/tokens/token-service.js';
import type { RecordAsRead as StoredRecord } from '../../src/telemetry/telemetry-service.js';
import type { SummaryView } from '../../src/summaries/summary-view.js';

/** A page of a list endpoint: the items under their key, and the next page's cursor (null on the last). */
export type Page<Key extends string, Item> = Record<Key, Item[]> & { next_cursor: string | null };

/** POST /v1/cases: a page of cases and the total, counted up to track_total. */
export type CaseSearch = Page<'cases', CaseView> & { total: number | null; total_relation: 'eq' | 'gte' | null };

/**
 * A case as the API shows it, with its AI summary in the shape the summaries feature gives it
 * (to the cases feature, which only passes it through, it is an opaque object).
 */
export type WithSummary<T extends { summary: unknown }> = Omit<T, 'summary'> & { summary: SummaryView | null };

/** GET /v1/cases/{case_id}: the case with its observations, devices and comments. */
export type CaseDetail = WithSummary<Awaited<ReturnType<typeof getCaseDetail>>>;

/** POST /v1/telemetry/search: a page of records, and where a tail of them starts. */
export type RecordSearch = Page<'records', StoredRecord> & {
  tail_cursor: string;
  partial: boolean;
  complete_up_to?: string;
};

/** GET /v1/cases/counts */
export interface CaseCounts {
  by_status: { new: number; in_progress: number; on_hold: number; closed: number };
  open_by_severity: { low: number; medium: number; high: number; critical: number };
}

/** GET /readyz (200 when ready, 503 when not). */
export interface Readiness {
  status: 'ready' | 'not_ready';
  checks: { database: string; record_writer: string; write_queue: string; detection: string };
  queue_bytes: number;
  detection_lag_records: number;
}

/** GET /v1/me */
export type Me = Static<typeof MeSchema>;

/** POST /v1/auth/login and GET /v1/auth/session */
export type SessionAnswer = Static<typeof SessionSchema>;

/** POST /v1/tokens: the value, shown this once, and the token. */
export interface CreatedToken {
  value: string;
  token: ApiToken;
}

/** GET /v1/openapi.json, as far as the suites read it. */
export interface OpenApiDocument {
  openapi: string;
  /** Path, then the lower-case method. */
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { securitySchemes: Record<string, unknown> };
}

export interface OpenApiOperation {
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  requestBody?: { content: Record<string, OpenApiContent> };
  /** By status code. */
  responses: Record<string, { description?: string; content?: Record<string, OpenApiContent> }>;
}

/** One media type of a request or response body. */
export interface OpenApiContent {
  schema?: JsonSchema;
  example?: unknown;
  examples?: unknown;
}

export interface JsonSchema {
  properties?: Record<string, JsonSchema>;
  [keyword: string]: unknown;
}
