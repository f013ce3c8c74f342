// The case pages' data: TanStack Query keys and fetchers over the /v1 case, user and ATT&CK
// endpoints. Every key starts with 'cases' (or the shared 'users' / 'attack'), so one
// invalidation after a write refreshes lists, counts, the open case and its history.
import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { api, currentTenantHeader, responseError } from '../../api/client';
import type { ListOptions } from '../../api/queries';
import type { Page } from '../../api/types';
import type {
  CaseCounts,
  CaseDetail,
  CaseList,
  CaseTimeline,
  Comment,
  HistoryEntry,
  Member,
  ObservableList,
  ProcessTree,
  SimilarCases,
  Technique,
} from './types';

export const caseKeys = {
  all: ['cases'] as const,
  search: (body: object) => ['cases', 'search', body] as const,
  counts: ['cases', 'counts'] as const,
  detail: (ref: string) => ['cases', 'detail', ref] as const,
  comments: (id: string) => ['cases', 'comments', id] as const,
  history: (id: string) => ['cases', 'history', id] as const,
  processTree: (id: string) => ['cases', 'process-tree', id] as const,
  timeline: (id: string) => ['cases', 'timeline', id] as const,
  observables: (id: string) => ['cases', 'observables', id] as const,
  similar: (id: string) => ['cases', 'similar', id] as const,
};

/** POST /v1/cases (the search) with `body`; the list page, the overview's top cases. */
export function useCaseSearch(body: object, options: ListOptions = {}) {
  return useQuery({
    queryKey: caseKeys.search(body),
    queryFn: ({ signal }) => api.post<CaseList>('/v1/cases', body, { signal }),
    placeholderData: keepPreviousData,
    refetchInterval: options.refetchInterval ?? false,
    enabled: options.enabled ?? true,
  });
}

/** Exact case numbers per status and open severity (the status tabs, the overview), every 10 s unless told. */
export function useCaseCounts(options: ListOptions = {}) {
  return useQuery({
    queryKey: caseKeys.counts,
    queryFn: ({ signal }) => api.get<CaseCounts>('/v1/cases/counts', { signal }),
    refetchInterval: options.refetchInterval ?? 10_000,
    staleTime: 5_000,
    enabled: options.enabled ?? true,
  });
}

export function useCase(ref: string) {
  return useQuery({
    queryKey: caseKeys.detail(ref),
    queryFn: ({ signal }) => api.get<CaseDetail>(`/v1/cases/${encodeURIComponent(ref)}`, { signal }),
  });
}

/** The tenant's users for the assignee pickers (one page of 500 covers a tenant's analysts). */
export function useMembers(enabled = true) {
  return useQuery({
    queryKey: ['users', 'all'],
    queryFn: ({ signal }) => api.get<Page<'users', Member>>('/v1/users', { query: { limit: 500 }, signal }),
    staleTime: 5 * 60_000,
    enabled,
  });
}

export function useTechniqueSearch(q: string) {
  return useQuery({
    queryKey: ['attack', 'techniques', q],
    queryFn: ({ signal }) =>
      api.get<{ techniques: Technique[]; attack_version: string }>('/v1/attack/techniques', {
        query: { q, limit: 15 },
        signal,
      }),
    enabled: q.trim().length >= 2,
    staleTime: Infinity,
    placeholderData: keepPreviousData,
  });
}

export function useComments(caseId: string) {
  return useInfiniteQuery({
    queryKey: caseKeys.comments(caseId),
    queryFn: ({ pageParam, signal }) =>
      api.get<Page<'comments', Comment>>(`/v1/cases/${caseId}/comments`, {
        query: { limit: 100, cursor: pageParam },
        signal,
      }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
}

export function useHistory(caseId: string) {
  return useInfiniteQuery({
    queryKey: caseKeys.history(caseId),
    queryFn: ({ pageParam, signal }) =>
      api.get<Page<'history', HistoryEntry>>(`/v1/cases/${caseId}/history`, {
        query: { limit: 50, order: 'desc', cursor: pageParam },
        signal,
      }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
}

/** GET /v1/cases/{id}/process-tree: per device, the processes around the observations. */
export function useProcessTree(caseId: string, enabled = true) {
  return useQuery({
    queryKey: caseKeys.processTree(caseId),
    queryFn: ({ signal }) => api.get<ProcessTree>(`/v1/cases/${caseId}/process-tree`, { signal }),
    enabled,
  });
}

/** GET /v1/cases/{id}/timeline: the observations and their evidence, oldest first. */
export function useCaseTimeline(caseId: string, enabled = true) {
  return useQuery({
    queryKey: caseKeys.timeline(caseId),
    queryFn: ({ signal }) => api.get<CaseTimeline>(`/v1/cases/${caseId}/timeline`, { signal }),
    enabled,
  });
}

/** GET /v1/cases/{id}/observables: by type, each with its pivots. */
export function useObservables(caseId: string) {
  return useQuery({
    queryKey: caseKeys.observables(caseId),
    queryFn: ({ signal }) => api.get<ObservableList>(`/v1/cases/${caseId}/observables`, { signal }),
  });
}

/** GET /v1/cases/{id}/similar: the cases sharing its observables, most similar first. */
export function useSimilarCases(caseId: string) {
  return useQuery({
    queryKey: caseKeys.similar(caseId),
    queryFn: ({ signal }) => api.get<SimilarCases>(`/v1/cases/${caseId}/similar`, { query: { limit: 10 }, signal }),
  });
}

/** The report's address; `format` picks Markdown or the printable HTML page. */
export function reportPath(caseId: string, format: 'markdown' | 'html'): string {
  return `/v1/cases/${caseId}/report?format=${format}`;
}

/**
 * Saves the report as a file. A member of the tenant can open the HTML page by its address; an
 * operator names the tenant in a header a plain link cannot send, so gets it as a file too.
 */
export async function downloadReport(caseId: string, format: 'markdown' | 'html', fileName: string): Promise<void> {
  const headers: Record<string, string> = { 'x-requested-with': 'sightline-web' };
  const tenant = currentTenantHeader();
  if (tenant) headers['sightline-tenant'] = tenant;
  const response = await fetch(reportPath(caseId, format), { headers, credentials: 'same-origin' });
  if (!response.ok) throw await responseError(response);
  const type = format === 'html' ? 'text/html' : 'text/markdown';
  const url = URL.createObjectURL(new Blob([await response.blob()], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // Give the browser a moment to start the download before the URL goes.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
