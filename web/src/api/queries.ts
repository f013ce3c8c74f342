// Query helpers the feature hooks share: a page of a GET list endpoint, kept on screen while the
// next page or a new filter loads, optionally polled.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, type RequestOptions } from './client';
import type { Page } from './types';

export type QueryParameters = NonNullable<RequestOptions['query']>;

/** The paging parameters every list endpoint takes (a list's own parameters join them). */
export interface PageParameters extends QueryParameters {
  limit?: number;
  cursor?: string | undefined;
}

export interface ListOptions {
  /** Poll every n ms (the overview); off by default. */
  refetchInterval?: number;
  enabled?: boolean;
}

/** GET `path` with `query` as one page of `K` items; the key is `[...key, query]`. */
export function useListQuery<K extends string, T>(
  key: readonly string[],
  path: string,
  query: QueryParameters,
  options: ListOptions = {},
) {
  return useQuery({
    queryKey: [...key, query],
    queryFn: ({ signal }) => api.get<Page<K, T>>(path, { query, signal }),
    placeholderData: keepPreviousData,
    refetchInterval: options.refetchInterval ?? false,
    enabled: options.enabled ?? true,
  });
}
