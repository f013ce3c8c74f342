// Records the live tail just put on screen are marked for a moment (the row flashes, see
// `.is-fresh`): each batch keeps its mark for `ms` after it showed, then loses it.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';

export function useFreshMarks(ms: number): [fresh: ReadonlySet<string>, mark: (ids: string[]) => void] {
  const [batches, setBatches] = useState<readonly string[][]>([]);
  // One timer per batch, started when the batch is first on screen.
  const timers = useRef(new Map<string[], number>());
  useEffect(() => {
    const running = timers.current;
    for (const batch of batches) {
      if (running.has(batch)) continue;
      const timer = window.setTimeout(() => {
        running.delete(batch);
        setBatches((current) => current.filter((other) => other !== batch));
      }, ms);
      running.set(batch, timer);
    }
  }, [batches, ms]);
  useEffect(() => {
    const running = timers.current;
    return () => {
      for (const timer of running.values()) window.clearTimeout(timer);
      running.clear();
    };
  }, []);
  const fresh = useMemo(() => new Set(batches.flat()), [batches]);
  const mark = useCallback((ids: string[]) => setBatches((current) => [...current, ids]), []);
  return [fresh, mark];
}
