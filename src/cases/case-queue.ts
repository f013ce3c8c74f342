// Case search over the tenants a call acts in: one tenant's, or a partner's queue across every
// tenant it serves. Each tenant is searched on its own, by its own indexes, for the page's worth
// of cases after the cursor; the pages are merged by (sort value, seq), which orders cases of all
// tenants at once since seq is unique across tenants, so the same cursor carries on across them.
// Totals add up, counted as far as the search asks in each tenant.
import { AppError } from '../core/errors.js';
import { findCaseTenant, type CaseRow } from './case-store.js';
import type { CasesDeps } from './case-context.js';
import {
  searchCases,
  sortValue,
  type CaseFilter,
  type CasePage,
  type CaseTotal,
  type TotalTracking,
} from './case-search.js';
import { presentCases, resolveAssignee, type CaseView } from './case-service.js';

export type CaseQueueFilter = CaseFilter & { assigneeRef?: string | null };

/** The filter as one tenant reads it: an assignee named by email or id is that tenant's person. */
async function tenantFilter(deps: CasesDeps, tenantId: number, filter: CaseQueueFilter): Promise<CaseFilter> {
  const { assigneeRef, ...rest } = filter;
  if (assigneeRef === undefined) return rest;
  if (assigneeRef === null) return { ...rest, assignee: null };
  // An unknown assignee matches nothing rather than failing the search.
  const person = await resolveAssignee(deps.db, tenantId, assigneeRef).catch((error: unknown) => {
    if (error instanceof AppError && error.code === 'unknown_assignee') return undefined;
    throw error;
  });
  // No user id has this shape (ids are usr_…), so nothing matches.
  return { ...rest, assignee: person?.id ?? '#unknown' };
}

/** Totals of several tenants as one: their sum, a lower bound past the limit or when any is one. */
function addTotals(totals: readonly (CaseTotal | null)[], tracking: TotalTracking): CaseTotal | null {
  if (!tracking) return null;
  const value = totals.reduce((sum, total) => sum + (total?.value ?? 0), 0);
  const cap = 'upTo' in tracking ? tracking.upTo : null;
  if (cap !== null && value > cap) return { value: cap, relation: 'gte' };
  return { value, relation: totals.some((total) => total?.relation === 'gte') ? 'gte' : 'eq' };
}

function byPageOrder(page: CasePage): (a: CaseRow, b: CaseRow) => number {
  const sign = page.order === 'desc' ? -1 : 1;
  return (a, b) => sign * (sortValue(a, page.sort) - sortValue(b, page.sort) || a.seq - b.seq);
}

/** The list form of the page's cases, each presented in its own tenant, in the page's order. */
async function presentAcross(deps: CasesDeps, rows: readonly CaseRow[]): Promise<CaseView[]> {
  const byTenant = new Map<number, CaseRow[]>();
  for (const row of rows) byTenant.set(row.tenant_id, [...(byTenant.get(row.tenant_id) ?? []), row]);
  const views = new Map<string, CaseView>();
  for (const [tenantId, tenantRows] of byTenant) {
    for (const view of await presentCases({ ...deps, tenantId }, tenantRows)) views.set(view.id, view);
  }
  return rows.map((row) => views.get(row.id)).filter((view) => view !== undefined);
}

export async function findCases(
  deps: CasesDeps,
  tenantIds: readonly number[],
  filter: CaseQueueFilter,
  page: CasePage,
  tracking: TotalTracking,
): Promise<{ cases: CaseView[]; next: { value: number; seq: number } | null; total: CaseTotal | null }> {
  const rows: CaseRow[] = [];
  const totals: (CaseTotal | null)[] = [];
  for (const tenantId of tenantIds) {
    const resolved = await tenantFilter(deps, tenantId, filter);
    const found = await searchCases(
      deps.db,
      deps.search,
      tenantId,
      resolved,
      { ...page, limit: page.limit + 1 },
      tracking,
    );
    rows.push(...found.rows);
    totals.push(found.total);
  }
  rows.sort(byPageOrder(page));
  const shown = rows.slice(0, page.limit);
  const last = shown.at(-1);
  return {
    cases: await presentAcross(deps, shown),
    next: rows.length > page.limit && last ? { value: sortValue(last, page.sort), seq: last.seq } : null,
    total: addTotals(totals, tracking),
  };
}

/**
 * The tenant of a case a partner opens from its queue without naming the tenant: found by the
 * case's id among the tenants it serves. A case number names no tenant, so it needs the header.
 */
export async function tenantOfCase<T extends { id: number }>(
  deps: CasesDeps,
  tenants: readonly T[],
  idOrNumber: string,
): Promise<T> {
  if (/^\d{1,15}$/.test(idOrNumber)) {
    throw new AppError(
      'tenant_required',
      'case numbers are per tenant: name the tenant in the Sightline-Tenant header, or give the case id (case_…)',
    );
  }
  const tenantId = await findCaseTenant(
    deps.db,
    tenants.map((tenant) => tenant.id),
    idOrNumber,
  );
  const tenant = tenants.find((candidate) => candidate.id === tenantId);
  if (!tenant) throw new AppError('not_found', `case ${idOrNumber} not found`);
  return tenant;
}
