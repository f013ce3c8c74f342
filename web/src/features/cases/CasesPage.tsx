// The case queue: status tabs with live counts, filters in the URL, sortable dense table,
// keyboard navigation (j/k/Enter, x selects), selection with bulk actions, cursor pages.
import { useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { useSession } from '../../app/session';
import { Pager, useCursorPager } from '../../components/paging';
import { QueryView } from '../../components/QueryView';
import { rowKeys, useRowNavigation } from '../../components/row-navigation';
import { KeyHints, PageHeader } from '../../components/ui';
import { useHotkeys } from '../../lib/hotkeys';
import { formatNumber } from '../../lib/format';
import { useUrlFilters } from '../../lib/url-state';
import { useCaseCounts, useCaseSearch } from './api';
import { BulkActions } from './BulkActions';
import { CaseFilterBar, filterNames, StatusTabs, tabOf, type CaseUrlFilters, type Tab } from './CaseFilters';
import { CaseListTable } from './CaseListTable';
import { useAssignableMe } from './pickers';
import { openCaseCount, openStatuses, severities, type CaseCounts } from './types';
import './cases.css';

const PAGE_SIZE = 50;

function scoreBound(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d{1,3}$/.test(value)) return undefined;
  const number = Number(value);
  return number <= 100 ? number : undefined;
}

/** The POST /v1/cases body for the URL's filters (without the cursor). */
function searchBody(filters: CaseUrlFilters, tab: Tab, me: string | null): Record<string, unknown> {
  const severity = (filters.severity ?? '')
    .split(',')
    .filter((value) => (severities as readonly string[]).includes(value));
  const scoreMin = scoreBound(filters.score_min);
  const scoreMax = scoreBound(filters.score_max);
  const assignee = filters.assignee === 'none' ? null : filters.assignee === 'me' ? me : filters.assignee;
  const tags = (filters.tag ?? '').split(/[\s,]+/).filter(Boolean);
  return {
    ...(tab === 'all' ? {} : { status: tab === 'open' ? openStatuses : [tab] }),
    ...(severity.length > 0 ? { severity } : {}),
    ...(scoreMin !== undefined ? { score_min: scoreMin } : {}),
    ...(scoreMax !== undefined ? { score_max: scoreMax } : {}),
    // "Me" means nothing for a caller who is no person of the tenant (an operator): no filter then.
    ...(filters.assignee && assignee !== null ? { assignee } : filters.assignee === 'none' ? { assignee: null } : {}),
    ...(filters.technique ? { technique: filters.technique } : {}),
    ...(tags.length > 0 ? { tags } : {}),
    ...(filters.sla === 'breached' ? { sla_breached: true } : filters.sla === 'within' ? { sla_breached: false } : {}),
    ...(filters.q?.trim() ? { text: filters.q.trim() } : {}),
    sort: filters.sort ?? 'created',
    order: filters.order === 'asc' ? 'asc' : 'desc',
    limit: PAGE_SIZE,
  };
}

/** "12 open (1 critical, 4 high) · 3 new" from the live counts. */
function countSummary(counts: CaseCounts): string {
  const open = openCaseCount(counts);
  const bySeverity = [...severities]
    .reverse()
    .filter((severity) => counts.open_by_severity[severity] > 0)
    .map((severity) => `${formatNumber(counts.open_by_severity[severity])} ${severity}`);
  return `${formatNumber(open)} open${bySeverity.length > 0 ? ` (${bySeverity.join(', ')})` : ''} · ${formatNumber(counts.by_status.new)} new`;
}

export default function CasesPage() {
  const navigate = useNavigate();
  const { can } = useSession();
  const me = useAssignableMe();
  const [filters, update] = useUrlFilters(filterNames);
  const tab = tabOf(filters);
  const body = useMemo(() => searchBody(filters, tab, me), [filters, tab, me]);
  const resetKey = JSON.stringify(body);
  const pager = useCursorPager(resetKey);
  const search = useCaseSearch({ ...body, ...(pager.cursor ? { cursor: pager.cursor } : {}) });
  const counts = useCaseCounts();
  const cases = search.data?.cases ?? [];
  const [ticked, setSelectedIds] = useState<Set<string>>(new Set());
  // Bulk actions act on the page shown: a new page or new filters start with nothing ticked
  // (adjusted while rendering, so no render shows ticks from the page before).
  const pageKey = JSON.stringify([resetKey, pager.cursor ?? null]);
  const [tickedOn, setTickedOn] = useState(pageKey);
  let selectedIds = ticked;
  if (tickedOn !== pageKey) {
    selectedIds = new Set();
    setTickedOn(pageKey);
    setSelectedIds(selectedIds);
  }
  const selectedCases = cases.filter((item) => selectedIds.has(item.id));
  const canWrite = can('cases:write');

  const open = (index: number) => {
    const item = cases[index];
    if (item) void navigate(`/cases/${item.number}`);
  };
  const { selected, setSelected } = useRowNavigation(cases.length, open);
  const toggle = (id: string) =>
    setSelectedIds((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  useHotkeys({
    x: () => {
      const item = cases[selected];
      if (item && canWrite) toggle(item.id);
    },
  });

  const setTab = (next: Tab) => {
    setSelectedIds(new Set());
    update({ status: next === 'open' ? '' : next });
  };
  const filtered = filterNames.some(
    (name) => name !== 'status' && name !== 'sort' && name !== 'order' && Boolean(filters[name]),
  );

  return (
    <>
      <PageHeader
        title="Cases"
        subtitle={counts.data ? countSummary(counts.data) : 'Security cases grouped from observations on devices'}
      />
      <StatusTabs active={tab} counts={counts.data} onChange={setTab} />
      <CaseFilterBar
        filters={filters}
        update={(changes) => {
          setSelectedIds(new Set());
          update(changes);
        }}
      />
      {canWrite && <BulkActions selected={selectedCases} onClear={() => setSelectedIds(new Set())} />}
      <section className="panel flush" aria-label="Case list">
        <QueryView
          query={search}
          loading="Loading cases"
          error="Could not load cases"
          empty={(data) =>
            data.cases.length === 0 &&
            (filtered
              ? 'No case matches these filters.'
              : tab === 'open'
                ? 'No open cases. Everything is handled.'
                : 'No cases here.')
          }
        >
          {(data) => (
            <CaseListTable
              cases={data.cases}
              filters={filters}
              update={update}
              selected={selected}
              selectedIds={selectedIds}
              canWrite={canWrite}
              refreshing={search.isFetching}
              onOpen={(index) => {
                setSelected(index);
                open(index);
              }}
              onToggle={toggle}
              onSelectIds={setSelectedIds}
            />
          )}
        </QueryView>
        <Pager
          pager={pager}
          nextCursor={search.data?.next_cursor}
          shown={cases.length}
          pageSize={PAGE_SIZE}
          total={search.data?.total}
          totalRelation={search.data?.total_relation ?? undefined}
        />
        <KeyHints keys={[...rowKeys, ...(canWrite ? [['x', 'selects'] as [string, string]] : []), ['/', 'searches']]} />
      </section>
    </>
  );
}
