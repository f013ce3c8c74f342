// The case pages' data: TanStack Query keys and fetchers over the /v1 case, user and ATT&CK
// endpoints. Every key starts with 'cases' (or the shared 'users' / 'attack'), so one
// invalidation after a write refreshes lists, counts, the open case and its history.
import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
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
  ProcessTree,
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
