// Types of the case pages, from the server's own route schemas (type-only imports), and the
// workflow constants from the server's pure workflow module, so the UI offers exactly the
// transitions the API allows.
import type { Static } from 'typebox';
import type {
  BulkResultSchema,
  CaseDetailSchema,
  CaseSchema,
  CommentSchema,
  HistorySchema,
  PatchCaseBody,
  ResolutionSchema,
  SeveritySchema,
  StatusSchema,
} from '../../../../src/cases/case-schemas.js';
import type { CaseCountsSchema, CaseListSchema } from '../../../../src/cases/case-search-schemas.js';
import type { ProcessTreeSchema, TimelineSchema } from '../../../../src/cases/case-investigation-schemas.js';
import type { ObservableListSchema, SimilarSchema } from '../../../../src/cases/case-observable-schemas.js';
import type { SummarySchema } from '../../../../src/summaries/summary-schemas.js';
import type { OwnRatingSchema } from '../../../../src/summaries/summary-routes.js';
import type { MemberSchema } from '../../../../src/identity/users/user-routes.js';
import type { TechniqueSchema } from '../../../../src/detection/attack-routes.js';

/** A case's summary has the summaries feature's shape, which the case schemas name by reference only. */
type WithSummary<T> = Omit<T, 'summary'> & { summary: Summary | null };

export type Case = WithSummary<Static<typeof CaseSchema>>;
export type CaseDetail = WithSummary<Static<typeof CaseDetailSchema>>;
export type CaseList = Omit<Static<typeof CaseListSchema>, 'cases'> & { cases: Case[] };
export type Comment = Static<typeof CommentSchema>;
export type HistoryEntry = Static<typeof HistorySchema>;
export type BulkResult = Static<typeof BulkResultSchema>;
export type Status = Static<typeof StatusSchema>;
export type Severity = Static<typeof SeveritySchema>;
export type Resolution = Static<typeof ResolutionSchema>;
export type Observation = CaseDetail['observations'][number];
export type Device = CaseDetail['devices'][number];
export type Summary = Static<typeof SummarySchema>;
export type Member = Static<typeof MemberSchema>;
export type Technique = Static<typeof TechniqueSchema>;

/** GET /v1/cases/counts: case numbers for the status tabs and the overview. */
export type CaseCounts = Static<typeof CaseCountsSchema>;

/** GET and POST /v1/cases/{id}/summary/feedback: the caller's current rating (null until rated). */
export type SummaryRating = Static<typeof OwnRatingSchema>;

/** The changes PATCH /v1/cases/{id} and each item of PATCH /v1/cases take (besides the version). */
export type CaseChanges = Omit<Static<typeof PatchCaseBody>, 'version'>;

export { statuses, resolutions, transitions } from '../../../../src/cases/case-workflow.js';
export const severities: readonly Severity[] = ['low', 'medium', 'high', 'critical'];
export const openStatuses: readonly Status[] = ['new', 'in_progress', 'on_hold'];

/** The open cases (new, in progress, on hold) of the counts. */
export function openCaseCount(counts: CaseCounts): number {
  return openStatuses.reduce((sum, status) => sum + counts.by_status[status], 0);
}

export const resolutionLabels: Record<Resolution, string> = {
  true_positive: 'True positive',
  benign_true_positive: 'Benign true positive',
  false_positive: 'False positive',
  duplicate: 'Duplicate',
  inconclusive: 'Inconclusive',
};

export const resolutionHints: Record<Resolution, string> = {
  true_positive: 'Malicious activity, confirmed',
  benign_true_positive: 'The rule was right, but the activity was authorised or harmless',
  false_positive: 'The rule matched something it should not have',
  duplicate: 'Another case covers this activity',
  inconclusive: 'Not enough evidence either way',
};

export type ProcessTree = Static<typeof ProcessTreeSchema>;
export type ProcessNode = ProcessTree['devices'][number]['processes'][number];
export type CaseTimeline = Static<typeof TimelineSchema>;
export type TimelineEntry = CaseTimeline['entries'][number];

/** GET /v1/cases/{id}/observables and one of them. */
export type ObservableList = Static<typeof ObservableListSchema>;
export type Observable = ObservableList['observables'][number];
export type ObservableType = Observable['type'];
/** GET /v1/cases/{id}/similar */
export type SimilarCases = Static<typeof SimilarSchema>;

/** Each type's heading, in the order the panel lists them (a Record, so a new type must be named here). */
export const observableTypeLabels: Record<ObservableType, string> = {
  ip: 'IP addresses',
  domain: 'Domains',
  url: 'URLs',
  md5: 'MD5 hashes',
  sha1: 'SHA-1 hashes',
  sha256: 'SHA-256 hashes',
  email: 'Email addresses',
  user: 'User names',
  host: 'Host names',
  process_path: 'Process paths',
  command_line: 'Command lines',
};

/** The tags the panel offers as toggles (others show as they are). */
export const knownObservableTags = ['ioc', 'benign', 'internal'] as const;
