// The ATT&CK coverage page's data: GET /v1/attack/coverage (refreshed every minute), and the
// Navigator layer saved as the file the server names.
import { useQuery } from '@tanstack/react-query';
import { api, currentTenantHeader, responseError } from '../../api/client';
import type { Static } from 'typebox';
import type { CoverageSchema } from '../../../../src/detection/coverage-schemas.js';

export type AttackCoverage = Static<typeof CoverageSchema>;
export type TechniqueCoverage = AttackCoverage['techniques'][number];
export type CoveringRule = TechniqueCoverage['rules'][number];
export type Logsource = CoveringRule['logsources'][number];
export type CoverageStatus = TechniqueCoverage['status'];
export const STATUSES = ['live', 'silent', 'uncovered'] as const satisfies readonly CoverageStatus[];

export function useCoverage() {
  return useQuery({
    queryKey: ['attack', 'coverage'],
    queryFn: ({ signal }) => api.get<AttackCoverage>('/v1/attack/coverage', { signal }),
    refetchInterval: 60_000,
  });
}

export function describeLogsource(logsource: Logsource): string {
  return [logsource.product, logsource.category, logsource.service].filter(Boolean).join(' / ') || 'any';
}

/** Downloads the Navigator layer under the file name the server gives it. */
export async function downloadNavigatorLayer(): Promise<string> {
  const headers: Record<string, string> = { accept: 'application/json', 'x-requested-with': 'sightline-web' };
  const tenant = currentTenantHeader();
  if (tenant) headers['sightline-tenant'] = tenant;
  const response = await fetch('/v1/attack/coverage/navigator-layer', { headers, credentials: 'same-origin' });
  if (!response.ok) throw await responseError(response);
  const fileName =
    /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? 'attack-coverage.json';
  const url = URL.createObjectURL(new Blob([await response.blob()], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // Give the browser a moment to start the download before the URL goes.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return fileName;
}
