// Live tail: polls POST /v1/telemetry/tail from the search's tail_cursor, at once while the
// server has more and every 1.5 s once caught up, handing each batch of new records to the
// page. A chained stream with a moving cursor rather than a cached query, so it is a loop here
// (the search and histogram go through TanStack Query). Errors back off and retry by themselves.
import { useEffect, useRef, useState } from 'react';
import { api } from '../../api/client';
import type { SearchCriteria, StoredRecord, TailAnswer } from './types';

const POLL_MS = 1_500;
const RETRY_MS = 5_000;
const BATCH = 500;

export interface LiveTailState {
  /** The last poll failed; it is retried. */
  error: unknown;
  /** When the last poll answered. */
  lastPollAt: number | null;
}

export function useLiveTail(options: {
  enabled: boolean;
  criteria: SearchCriteria;
  /** Where to start: the tail_cursor of the search the page shows. */
  startCursor: string | undefined;
  /** New records, oldest first. */
  onRecords: (records: StoredRecord[]) => void;
}): LiveTailState {
  const { enabled, criteria, startCursor } = options;
  const onRecords = useRef(options.onRecords);
  onRecords.current = options.onRecords;
  const [state, setState] = useState<LiveTailState>({ error: null, lastPollAt: null });
  const criteriaKey = JSON.stringify(criteria);

  useEffect(() => {
    if (!enabled || !startCursor) return undefined;
    const controller = new AbortController();
    let cursor = startCursor;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const body = JSON.parse(criteriaKey) as SearchCriteria;
    const poll = async () => {
      try {
        const answer = await api.post<TailAnswer>(
          '/v1/telemetry/tail',
          { ...body, tail_cursor: cursor, limit: BATCH },
          { signal: controller.signal },
        );
        cursor = answer.tail_cursor;
        if (answer.records.length > 0) onRecords.current(answer.records);
        setState({ error: null, lastPollAt: Date.now() });
        timer = setTimeout(() => void poll(), answer.caught_up ? POLL_MS : 0);
      } catch (error) {
        if (controller.signal.aborted) return;
        setState((previous) => ({ ...previous, error }));
        timer = setTimeout(() => void poll(), RETRY_MS);
      }
    };
    void poll();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [enabled, startCursor, criteriaKey]);

  useEffect(() => {
    if (!enabled) setState({ error: null, lastPollAt: null });
  }, [enabled]);
  return state;
}
