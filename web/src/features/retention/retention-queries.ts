// The retention pages' data: the tenant's retention (GET/PATCH /v1/retention) and the
// operator's overview and range (GET /v1/operator/retention, PATCH …/limits).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import type {
  RetentionChange,
  RetentionLimits,
  TenantRetention,
  TenantRetentionSummary,
} from '../../../../src/retention/retention-service.js';

export type { RetentionLimits, TenantRetention, TenantRetentionSummary };

const tenantKey = ['retention'] as const;
const operatorKey = ['operator', 'retention'] as const;

export function useRetention() {
  return useQuery({ queryKey: tenantKey, queryFn: () => api.get<TenantRetention>('/v1/retention') });
}

export function useRetentionChange() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (change: RetentionChange) => api.patch<TenantRetention>('/v1/retention', change),
    onSuccess: (data) => queryClient.setQueryData(tenantKey, data),
  });
}

export function useRetentionOverview() {
  return useQuery({
    queryKey: operatorKey,
    queryFn: () =>
      api.get<{ limits: RetentionLimits; tenants: TenantRetentionSummary[] }>('/v1/operator/retention', {
        noTenant: true,
      }),
  });
}

export function useLimitsChange() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (change: Partial<RetentionLimits>) =>
      api.patch<RetentionLimits>('/v1/operator/retention/limits', change, { noTenant: true }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['operator'] }),
  });
}
