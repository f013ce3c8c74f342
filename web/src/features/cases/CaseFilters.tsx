// The case list's filters and status tabs, all kept in the URL: a filtered view is a link.
import { DebouncedInput } from '../../components/DebouncedInput';
import { ToggleGroup } from '../../components/ToggleGroup';
import { Button } from '../../components/ui';
import { formatNumber, humanize } from '../../lib/format';
import type { UrlFilters } from '../../lib/url-state';
import { TechniqueInput, PersonSelect } from './pickers';
import { openCaseCount, severities, statuses, type CaseCounts, type Status } from './types';

export const filterNames = [
  'status',
  'severity',
  'score_min',
  'score_max',
  'assignee',
  'technique',
  'tag',
  'sla',
  'q',
  'sort',
  'order',
] as const;
export type CaseFilterName = (typeof filterNames)[number];
export type CaseUrlFilters = UrlFilters<CaseFilterName>;

export type Tab = 'open' | Status | 'all';
export const tabs: { key: Tab; label: string }[] = [
  { key: 'open', label: 'Open' },
  ...statuses.map((status) => ({ key: status, label: humanize(status) })),
  { key: 'all', label: 'All' },
];

export function tabOf(filters: CaseUrlFilters): Tab {
  const value = filters.status;
  return value === 'all' || (statuses as readonly string[]).includes(value ?? '') ? (value as Tab) : 'open';
}

function tabCount(tab: Tab, counts: CaseCounts | undefined): number | undefined {
  if (!counts) return undefined;
  const by = counts.by_status;
  if (tab === 'open') return openCaseCount(counts);
  if (tab === 'all') return statuses.reduce((sum, status) => sum + by[status], 0);
  return by[tab];
}

export function StatusTabs({
  active,
  counts,
  onChange,
}: {
  active: Tab;
  counts: CaseCounts | undefined;
  onChange: (tab: Tab) => void;
}) {
  return (
    <div className="tabs" role="tablist" aria-label="Case status">
      {tabs.map((tab) => {
        const count = tabCount(tab.key, counts);
        return (
          <button
            key={tab.key}
            type="button"
            role="tab"
            aria-selected={active === tab.key}
            className="tab"
            onClick={() => onChange(tab.key)}
          >
            {tab.label}
            {count !== undefined && <span className="case-tab-count">{formatNumber(count)}</span>}
          </button>
        );
      })}
    </div>
  );
}

export function CaseFilterBar({
  filters,
  update,
}: {
  filters: CaseUrlFilters;
  update: (changes: CaseUrlFilters) => void;
}) {
  const active = filterNames.some((name) => name !== 'status' && name !== 'sort' && name !== 'order' && filters[name]);

  return (
    <div className="filters case-filters">
      <label className="field">
        <span className="field-label">Search</span>
        <DebouncedInput
          type="search"
          data-search
          aria-label="Search cases"
          placeholder="#42, title, host, tag"
          value={filters.q ?? ''}
          onSettle={(q) => update({ q })}
        />
      </label>
      <ToggleGroup
        label="Severity"
        options={severities}
        value={filters.severity}
        onChange={(severity) => update({ severity })}
      />
      <div className="field">
        <span className="field-label">Score</span>
        <span className="score-range">
          <DebouncedInput
            type="number"
            min={0}
            max={100}
            aria-label="Minimum score"
            placeholder="min"
            value={filters.score_min ?? ''}
            onSettle={(value) => update({ score_min: value })}
          />
          <span className="faint">–</span>
          <DebouncedInput
            type="number"
            min={0}
            max={100}
            aria-label="Maximum score"
            placeholder="max"
            value={filters.score_max ?? ''}
            onSettle={(value) => update({ score_max: value })}
          />
        </span>
      </div>
      <PersonSelect
        label="Assignee"
        value={filters.assignee ?? ''}
        anyLabel="Anyone"
        withMe
        onChange={(assignee) => update({ assignee })}
      />
      <TechniqueInput value={filters.technique ?? ''} onChange={(technique) => update({ technique })} />
      <label className="field">
        <span className="field-label">Tag</span>
        <DebouncedInput
          type="search"
          aria-label="Tag"
          placeholder="tag"
          size={10}
          value={filters.tag ?? ''}
          onSettle={(value) => update({ tag: value.toLowerCase() })}
        />
      </label>
      <label className="field sla-filter">
        <span className="field-label">SLA</span>
        <select aria-label="SLA" value={filters.sla ?? ''} onChange={(event) => update({ sla: event.target.value })}>
          <option value="">Any</option>
          <option value="breached">Breached</option>
          <option value="within">Within SLA</option>
        </select>
      </label>
      {active && (
        <Button
          small
          variant="ghost"
          onClick={() =>
            update({ severity: '', score_min: '', score_max: '', assignee: '', technique: '', tag: '', sla: '', q: '' })
          }
        >
          Clear filters
        </Button>
      )}
    </div>
  );
}
