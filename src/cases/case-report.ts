// What a case report holds, gathered once for both renderings (case-report-markdown.ts,
// case-report-html.ts): the case with its facts, its AI summary and the notice that comes with
// it, the timeline, the observations with their evidence fields, the observables, comments and
// history. Reads only, each part bounded; everything is in a fixed order, so the same case
// reads the same way twice.
import type { Kysely } from 'kysely';
import type { Tables } from '../storage/schema.js';
import type { FieldValue } from '../telemetry/normalise/event.js';
import { recordIds } from '../core/record-ids.js';
import { truncateUtf8 } from '../detection/observable-values.js';
import { getCaseDetail, MAX_DETAIL_OBSERVATIONS } from './case-service.js';
import { caseEvidenceFields } from './case-store.js';
import { listComments } from './case-comment-store.js';
import { caseTimeline } from './case-investigation.js';
import { caseObservables, type ObservableView } from './case-observables.js';
import { pageHistory } from './case-actions.js';
import type { CaseReader } from './case-context.js';

export const REPORT_LIMITS = {
  comments: 500,
  history: 1_000,
  /** Evidence fields shown per record, and bytes per value. */
  fieldsPerRecord: 30,
  valueBytes: 1_024,
} as const;

/** The summary as the summaries feature presents it: the parts a report shows. */
export interface ReportSummary {
  sections: { heading: string; markdown: string }[];
  notice: string;
  generated_at: string;
  provider: string;
  model: string;
  is_llm: boolean;
  stale: boolean;
  stale_reasons: string[];
}

export interface ReportEvidence {
  recordId: string | null;
  fields: [string, string][];
}

type Detail = Awaited<ReturnType<typeof getCaseDetail>>;
type History = Awaited<ReturnType<typeof pageHistory>>['history'];

export interface CaseReport {
  tenant: { name: string; code_name: string };
  detail: Detail;
  /** Null when there is none; `unavailable` says why there cannot be one. */
  summary: ReportSummary | null;
  summaryUnavailable: string | null;
  timeline: Awaited<ReturnType<typeof caseTimeline>>;
  evidence: Map<string, ReportEvidence[]>;
  observables: ObservableView[];
  comments: { author: string; at: string; body: string }[];
  history: History;
}

/** The summary view is the summaries feature's (cases know it as an object): read what a report shows. */
function summaryOf(view: object | null): ReportSummary | null {
  if (view === null) return null;
  const summary = view as Partial<ReportSummary>;
  if (!Array.isArray(summary.sections) || typeof summary.notice !== 'string') return null;
  return summary as ReportSummary;
}

function shown(value: FieldValue): string {
  return truncateUtf8(typeof value === 'string' ? value : JSON.stringify(value), REPORT_LIMITS.valueBytes);
}

function evidenceOf(stored: string | undefined): ReportEvidence[] {
  if (stored === undefined) return [];
  const parsed = JSON.parse(stored) as { records?: { seq: number; fields: Record<string, FieldValue> }[] };
  return (parsed.records ?? []).map((record) => ({
    recordId: record.seq > 0 ? (recordIds([record.seq])[0] ?? null) : null,
    fields: Object.entries(record.fields)
      .sort(([a], [b]) => a.localeCompare(b))
      .slice(0, REPORT_LIMITS.fieldsPerRecord)
      .map(([name, value]) => [name, shown(value)]),
  }));
}

export async function caseReport(
  reader: CaseReader & { db: Kysely<Tables> },
  tenant: { name: string; code_name: string },
  caseRef: string,
): Promise<CaseReport> {
  const { db, tenantId } = reader;
  const detail = await getCaseDetail(reader, caseRef);
  const stored = await caseEvidenceFields(db, tenantId, detail.id, MAX_DETAIL_OBSERVATIONS);
  const comments = await listComments(db, tenantId, detail.id, { limit: REPORT_LIMITS.comments });
  const history = await pageHistory(db, tenantId, detail.id, { limit: REPORT_LIMITS.history, order: 'asc' });
  return {
    tenant: { name: tenant.name, code_name: tenant.code_name },
    detail,
    summary: summaryOf(detail.summary),
    summaryUnavailable: detail.summary_unavailable?.detail ?? null,
    timeline: await caseTimeline(db, tenantId, detail.id),
    evidence: new Map(
      detail.observations.map((observation) => [observation.id, evidenceOf(stored.get(observation.id))]),
    ),
    observables: (await caseObservables(db, tenantId, detail.id, false)).observables,
    comments: comments.map((comment) => ({
      author: comment.author_label,
      at: new Date(comment.created_at).toISOString(),
      body: comment.body,
    })),
    history: history.history,
  };
}
