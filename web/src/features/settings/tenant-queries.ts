// What the settings and operator pages share: the tenant query (GET /v1/tenant) they read the
// collector address and switches from, and an operator's change to a tenant.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import type { Tenant } from '../../api/types';

export const tenantQueryKey = ['tenant'] as const;

/** The tenant the UI acts in, with its collector address, approvals and AI setting. */
export function useTenant() {
  return useQuery({ queryKey: tenantQueryKey, queryFn: () => api.get<Tenant>('/v1/tenant'), staleTime: 30_000 });
}

/** PATCH /v1/tenants/{code}: an operator's change to a tenant, refreshing every view of it. */
export function useTenantChange(codeName: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (
      changes: Partial<Pick<Tenant, 'name' | 'ai_summaries' | 'observation_write_approved' | 'summary_provider'>>,
    ) => api.patch<Tenant>(`/v1/tenants/${encodeURIComponent(codeName)}`, changes, { noTenant: true }),
    onSuccess: async () => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: tenantQueryKey }),
        queryClient.invalidateQueries({ queryKey: ['operator'] }),
      ]);
    },
  });
}
