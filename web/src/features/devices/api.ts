// The device pages' data: TanStack Query hooks over /v1/devices. Keys start with 'devices'; an
// edit refreshes every device query (a criticality change also rescores cases: 'cases' too).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { useListQuery, type ListOptions, type PageParameters } from '../../api/queries';
import type { Device, DeviceChanges, DeviceDetail } from './types';

export type DeviceQuery = PageParameters & {
  name?: string | undefined;
  ip?: string | undefined;
  seen_since?: string | undefined;
  has_open_case?: boolean | undefined;
};

export function useDeviceList(query: DeviceQuery, options?: ListOptions) {
  return useListQuery<'devices', Device>(['devices', 'list'], '/v1/devices', query, options);
}

export function useDevice(id: string) {
  return useQuery({
    queryKey: ['devices', 'detail', id],
    queryFn: ({ signal }) => api.get<DeviceDetail>(`/v1/devices/${encodeURIComponent(id)}`, { signal }),
  });
}

export function useEditDevice(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (changes: DeviceChanges) => api.patch<Device>(`/v1/devices/${encodeURIComponent(id)}`, changes),
    onSuccess: async () => {
      await Promise.all([
        client.invalidateQueries({ queryKey: ['devices'] }),
        client.invalidateQueries({ queryKey: ['cases'] }),
      ]);
    },
  });
}
