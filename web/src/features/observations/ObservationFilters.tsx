// The observation list's filters, every one the API offers, all kept in the URL: level (several),
// rule, ATT&CK technique, host, source, and a time range (a preset or from–to).
import { DebouncedInput } from '../../components/DebouncedInput';
import { ToggleGroup } from '../../components/ToggleGroup';
import { Button, Field } from '../../components/ui';
import { TECHNIQUE_ID } from '../../lib/attack';
import { isoToLocalInput, localInputToIso } from '../../lib/format';
import { timeRanges } from '../../lib/time-range';
import type { UrlFilters } from '../../lib/url-state';
import { useRules } from './api';
import { levels } from './types';

export const filterNames = [
  'level',
  'rule_id',
  'technique',
  'host',
  'source',
  'range',
  'since',
  'until',
  'id',
] as const;
export type ObservationFilterName = (typeof filterNames)[number];
export type ObservationUrlFilters = UrlFilters<ObservationFilterName>;

function RuleSelect({ value, onChange }: { value: string | undefined; onChange: (value: string) => void }) {
  const rules = useRules();
  const list = [...(rules.data?.rules ?? [])].sort((a, b) => a.title.localeCompare(b.title));
  // A rule id from a link that is not (or no longer) loaded stays selectable.
  const unknown = value && !list.some((rule) => rule.id === value);
  return (
    <Field label="Rule">
      <select
        value={value ?? ''}
        onChange={(event) => onChange(event.target.value)}
        className="rule-select"
        disabled={rules.isPending}
      >
        <option value="">
          {rules.isPending ? 'Loading rules…' : rules.isError ? 'Any rule (list unavailable)' : 'Any rule'}
        </option>
        {unknown && <option value={value}>{value}</option>}
        {list.map((rule) => (
          <option key={rule.id} value={rule.id}>
            {rule.title}
          </option>
        ))}
      </select>
    </Field>
  );
}

export function ObservationFilterBar({
  filters,
  update,
}: {
  filters: ObservationUrlFilters;
  update: (changes: ObservationUrlFilters) => void;
}) {
  const custom = Boolean(filters.since) || Boolean(filters.until);
  const rangeValue = custom ? 'custom' : (filters.range ?? '');
  const technique = filters.technique ?? '';
  const active = filterNames.some((name) => name !== 'id' && filters[name]);

  return (
    <div className="filters observation-filters" role="search" aria-label="Filter observations">
      <Field label="Host">
        <DebouncedInput
          type="search"
          data-search
          placeholder="Exact host name  ( / )"
          value={filters.host ?? ''}
          onSettle={(host) => update({ host, id: '' })}
        />
      </Field>
      <ToggleGroup
        label="Level"
        options={levels}
        value={filters.level}
        onChange={(level) => update({ level, id: '' })}
      />
      <RuleSelect value={filters.rule_id} onChange={(rule_id) => update({ rule_id, id: '' })} />
      <Field
        label="Technique"
        error={technique && !TECHNIQUE_ID.test(technique) ? 'e.g. T1059 or T1059.004' : undefined}
      >
        <DebouncedInput
          type="text"
          className="technique-input"
          placeholder="T1059"
          value={technique}
          onSettle={(value) => update({ technique: value.toUpperCase(), id: '' })}
        />
      </Field>
      <Field label="Source">
        <select value={filters.source ?? ''} onChange={(event) => update({ source: event.target.value, id: '' })}>
          <option value="">Any source</option>
          <option value="detection">Detection</option>
          <option value="external">External</option>
        </select>
      </Field>
      <Field label="Time range">
        <select
          value={rangeValue}
          onChange={(event) => {
            const value = event.target.value;
            if (value === 'custom')
              update({ range: '', since: new Date(Date.now() - 86_400_000).toISOString(), id: '' });
            else update({ range: value, since: '', until: '', id: '' });
          }}
        >
          <option value="">Any time</option>
          {timeRanges.map((range) => (
            <option key={range.value} value={range.value}>
              {range.label}
            </option>
          ))}
          <option value="custom">Custom…</option>
        </select>
      </Field>
      {custom && (
        <>
          <Field label="From">
            <input
              type="datetime-local"
              value={isoToLocalInput(filters.since)}
              onChange={(event) => update({ since: localInputToIso(event.target.value) ?? '', id: '' })}
            />
          </Field>
          <Field label="To">
            <input
              type="datetime-local"
              value={isoToLocalInput(filters.until)}
              onChange={(event) => update({ until: localInputToIso(event.target.value) ?? '', id: '' })}
            />
          </Field>
        </>
      )}
      {active && (
        <Button variant="ghost" onClick={() => update(Object.fromEntries(filterNames.map((name) => [name, ''])))}>
          Clear filters
        </Button>
      )}
    </div>
  );
}
