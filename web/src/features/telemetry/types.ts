// Telemetry response shapes, from the server's own route schemas (type-only imports).
import type { Static } from 'typebox';
import type {
  FieldsResponse,
  HistogramResponse,
  SearchResponse,
  StoredRecordSchema,
  TailResponse,
} from '../../../../src/telemetry/telemetry-schemas.js';
import type { FieldValue } from '../../../../src/telemetry/telemetry-store.js';
import type { AskResponse } from '../../../../src/telemetry/ask/ask-routes.js';
import type {
  SavedSearchList as SavedSearchListSchema,
  SavedSearchSchema,
} from '../../../../src/telemetry/saved-search-schemas.js';

export type StoredRecord = Static<typeof StoredRecordSchema>;
export type SearchPage = Static<typeof SearchResponse>;
export type TailAnswer = Static<typeof TailResponse>;
export type Histogram = Static<typeof HistogramResponse>;
export type FieldList = Static<typeof FieldsResponse>;
export type SavedSearch = Static<typeof SavedSearchSchema>;
export type SavedSearchList = Static<typeof SavedSearchListSchema>;
export type { FieldValue };

/** Field equality filters as the API takes them: path → JSON scalar. */
export type FieldFilters = Record<string, FieldValue>;

/** What a search matches (the body of search, tail, histogram and export, without paging). */
export interface SearchCriteria {
  query?: string;
  since?: string;
  until?: string;
  filters?: FieldFilters;
}
export type AskProposal = Static<typeof AskResponse>;
