// The observation pages' data: TanStack Query hooks over /v1/observations, its stats and case
// lookups, and /v1/rules (for the rule filter). Keys start with 'observations' or 'rules'.
import { skipToken, useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { useListQuery, type ListOptions, type PageParameters } from '../../api/queries';
import type { Page } from '../../api/types';
import type { Observation, ObservationCases, ObservationDetail, ObservationStats, Rule } from './types';

export type ObservationQuery = PageParameters & {
  since?: string | undefined;
  until?: string | undefined;
  level?: string | undefined;
  rule_id?: string | undefined;
  technique?: string | undefined;
  host?: string | undefined;
  source?: string | undefined;
};

export function useObservationList(query: ObservationQuery, options?: ListOptions) {
  return useListQuery<'observations', Observation>(['observations', 'list'], '/v1/observations', query, options);
}

/** One observation with its evidence; the case page reads it too (the same key), and it seldom changes. */
export function useObservation(id: string | undefined, enabled = true) {
  return useQuery({
    queryKey: ['observations', 'detail', id],
    queryFn: id
      ? ({ signal }) => api.get<ObservationDetail>(`/v1/observations/${encodeURIComponent(id)}`, { signal })
      : skipToken,
    enabled,
    staleTime: 5 * 60_000,
  });
}

/** The case of each observation shown (one call for a page); off without cases:read. */
export function useObservationCases(ids: string[], enabled: boolean) {
  return useQuery({
    queryKey: ['observations', 'cases', ids],
    queryFn: ({ signal }) =>
      api.get<ObservationCases>('/v1/observations/cases', { query: { ids: ids.join(',') }, signal }),
    enabled: enabled && ids.length > 0,
    staleTime: 30_000,
  });
}

/** Counts per day (in the browser's time zone) and level, and the last 24 hours. */
export function useObservationStats(days: number, options: ListOptions = {}) {
  const offset = -new Date().getTimezoneOffset();
  return useQuery({
    queryKey: ['observations', 'stats', days, offset],
    queryFn: ({ signal }) =>
      api.get<ObservationStats>('/v1/observations/stats', { query: { days, utc_offset_minutes: offset }, signal }),
    refetchInterval: options.refetchInterval ?? false,
    enabled: options.enabled ?? true,
  });
}

/** The loaded rules, for the rule filter (a deployment runs a few hundred at most). */
export function useRules() {
  return useQuery({
    queryKey: ['rules', 'all'],
    queryFn: ({ signal }) =>
      api.get<Page<'rules', Rule> & { total: number }>('/v1/rules', { query: { limit: 500 }, signal }),
    staleTime: 5 * 60_000,
  });
}
