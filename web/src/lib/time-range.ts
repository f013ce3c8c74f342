// Relative time ranges ("last 24 hours") as the list filters offer them, and the moment such a
// range is measured back from: taken when the range is picked, renewed by Refresh.
import { useCallback, useState } from 'react';

export const timeRanges = [
  { value: '24h', label: 'Last 24 hours', ms: 86_400_000 },
  { value: '7d', label: 'Last 7 days', ms: 7 * 86_400_000 },
  { value: '14d', label: 'Last 14 days', ms: 14 * 86_400_000 },
  { value: '30d', label: 'Last 30 days', ms: 30 * 86_400_000 },
] as const;

/** The start of a preset range (`24h`, `7d`…) measured back from `now`, as ISO; undefined for none. */
export function rangeStart(range: string | undefined, now: number): string | undefined {
  const preset = timeRanges.find((item) => item.value === range);
  return preset ? new Date(now - preset.ms).toISOString() : undefined;
}

/**
 * "Now" for a relative range: a new moment whenever `key` (the range picked) changes, and on
 * `refresh()`; otherwise stable, so the query (and its cache key) stays the same between renders.
 */
export function useRangeNow(key: string | undefined): [number, () => void] {
  const [anchor, setAnchor] = useState(() => ({ key, at: Date.now() }));
  if (anchor.key !== key) {
    // Adjusting state while rendering (React's pattern for "reset when a prop changes"): React
    // renders again at once with the new moment, before committing, so no request goes out for the
    // old one. The clock is read in the update, like the initial moment, once per new range.
    setAnchor(() => ({ key, at: Date.now() }));
  }
  const refresh = useCallback(() => setAnchor((previous) => ({ key: previous.key, at: Date.now() })), []);
  return [anchor.at, refresh];
}
