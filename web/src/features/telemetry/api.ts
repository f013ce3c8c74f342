// Telemetry calls: a page of search results and the histogram (TanStack Query), and the NDJSON
// export, which is a POST (session cookie + CSRF token) saved through a Blob, since a plain
// download link can only GET.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, currentTenantHeader, responseError } from '../../api/client';
import type { FieldList, Histogram, SearchCriteria, SearchPage } from './types';

export const PAGE_SIZE = 100;

export function useTelemetrySearch(criteria: SearchCriteria, order: 'asc' | 'desc', cursor: string | undefined) {
  const body = { ...criteria, order, limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) };
  return useQuery({
    queryKey: ['telemetry', 'search', body],
    queryFn: ({ signal }) => api.post<SearchPage>('/v1/telemetry/search', body, { signal }),
    placeholderData: keepPreviousData,
    // A search is a snapshot of a moment; new records come from Refresh or the live tail.
    staleTime: Number.POSITIVE_INFINITY,
    refetchOnWindowFocus: false,
  });
}

export function useTelemetryHistogram(criteria: SearchCriteria, live: boolean) {
  const body = { ...criteria, since: criteria.since ?? new Date(0).toISOString(), buckets: 60 };
  return useQuery({
    queryKey: ['telemetry', 'histogram', body],
    queryFn: ({ signal }) => api.post<Histogram>('/v1/telemetry/histogram', body, { signal }),
    placeholderData: keepPreviousData,
    staleTime: Number.POSITIVE_INFINITY,
    refetchOnWindowFocus: false,
    // While live, the bars keep up too (relative ranges end "now" on the server).
    refetchInterval: live ? 10_000 : false,
  });
}

/** Field names of the tenant's recent records, for suggestions; fetched once a page. */
export function useTelemetryFields() {
  return useQuery({
    queryKey: ['telemetry', 'fields'],
    queryFn: ({ signal }) => api.get<FieldList>('/v1/telemetry/fields', { signal }),
    staleTime: 5 * 60_000,
    refetchOnWindowFocus: false,
  });
}

export const EXPORT_LIMIT = 100_000;

/** Downloads the matching records as NDJSON; resolves with how many lines were saved. */
export async function downloadExport(
  criteria: SearchCriteria,
  order: 'asc' | 'desc',
  csrfToken: string,
  fileName: string,
): Promise<number> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/x-ndjson, application/problem+json',
    'x-requested-with': 'sightline-web',
    'x-csrf-token': csrfToken,
  };
  const tenant = currentTenantHeader();
  if (tenant) headers['sightline-tenant'] = tenant;
  const response = await fetch('/v1/telemetry/export', {
    method: 'POST',
    headers,
    credentials: 'same-origin',
    body: JSON.stringify({ ...criteria, order, max_records: EXPORT_LIMIT }),
  });
  if (!response.ok) throw await responseError(response);
  const blob = await response.blob();
  // A cut-off stream (see the export's description) rejects above instead of saving half a file.
  const lines = (await blob.text()).split('\n').filter(Boolean).length;
  const url = URL.createObjectURL(new Blob([blob], { type: 'application/x-ndjson' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // Give the browser a moment to start the download before the URL goes.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return lines;
}
