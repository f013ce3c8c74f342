// The overview's own data: every figure refreshes every 30 s; the case and observation figures
// come from those features' hooks (the same cache), the devices seen in the last 24 hours from here.
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import type { Page } from '../../api/types';
import { openStatuses } from '../cases/types';
import type { Device } from '../devices/types';

export const REFRESH_MS = 30_000;

/** The search behind "Highest-scoring open cases": no total needed, the fastest page. */
export const topOpenCases = {
  status: openStatuses,
  sort: 'score',
  order: 'desc',
  limit: 8,
  track_total: false,
} as const;

/** Devices seen in the last 24 hours: counted from one page of 500 ("500+" beyond). */
export function useRecentDevices(enabled: boolean) {
  return useQuery({
    queryKey: ['devices', 'seen-24h'],
    queryFn: async ({ signal }) => {
      const page = await api.get<Page<'devices', Device>>('/v1/devices', {
        query: { seen_since: new Date(Date.now() - 86_400_000).toISOString(), limit: 500 },
        signal,
      });
      return { count: page.devices.length, more: page.next_cursor !== null };
    },
    refetchInterval: REFRESH_MS,
    enabled,
  });
}
