// List filters live in the URL, so a filtered view is a link to share and survives a reload.
import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router';

export type UrlFilters<K extends string> = Partial<Record<K, string>>;

/** The named query parameters as an object, and a setter that merges changes (empty removes). */
export function useUrlFilters<K extends string>(
  names: readonly K[],
): [UrlFilters<K>, (changes: UrlFilters<K>) => void] {
  const [params, setParams] = useSearchParams();
  const filters = useMemo(() => {
    const result: UrlFilters<K> = {};
    for (const name of names) {
      const value = params.get(name);
      if (value !== null && value !== '') result[name] = value;
    }
    return result;
    // `params` is a new object only when the query string changes; callers pass a constant list of names.
  }, [names, params]);
  const update = useCallback(
    (changes: UrlFilters<K>) => {
      setParams(
        (previous) => {
          const next = new URLSearchParams(previous);
          for (const [name, value] of Object.entries(changes) as [K, string | undefined][]) {
            if (value === undefined || value === '') next.delete(name);
            else next.set(name, value);
          }
          return next;
        },
        { replace: true },
      );
    },
    [setParams],
  );
  return [filters, update];
}
