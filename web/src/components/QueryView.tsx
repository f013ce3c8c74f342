// One way every page shows a query's states: a spinner while the first answer is on its way, the
// problem with a retry when it failed, an explanation when there is nothing to show, and the
// content once there is. A refresh that fails over data already shown keeps the data and says so.
import type { ReactNode } from 'react';
import { ApiError } from '../api/client';
import { Empty, ErrorState, Loading } from './ui';

/** What QueryView reads of a TanStack query (a useQuery or useInfiniteQuery result fits). */
export interface QueryLike<T> {
  data: T | undefined;
  error: unknown;
  refetch: () => unknown;
}

export function QueryView<T>({
  query,
  loading,
  error = 'Could not load this',
  empty,
  notFound,
  children,
}: {
  query: QueryLike<T>;
  /** What is loading, e.g. "Loading tokens" (the spinner's accessible name). */
  loading: string;
  /** The title of the error, e.g. "Could not load tokens". */
  error?: string;
  /** When the data holds nothing to show: the explanation to show instead (else null/false/undefined). */
  empty?: (data: T) => ReactNode;
  /** What to show when the API answers 404 (the object does not exist in this tenant). */
  notFound?: ReactNode;
  children: (data: T) => ReactNode;
}) {
  const retry = () => void query.refetch();
  if (query.data === undefined) {
    if (notFound && query.error instanceof ApiError && query.error.status === 404) return <>{notFound}</>;
    if (query.error) return <ErrorState error={query.error} retry={retry} title={error} />;
    return <Loading what={loading} />;
  }
  const nothing = empty?.(query.data);
  return (
    <>
      {Boolean(query.error) && (
        <ErrorState error={query.error} retry={retry} title="Could not refresh: showing the last answer" />
      )}
      {nothing ? <Empty>{nothing}</Empty> : children(query.data)}
    </>
  );
}
