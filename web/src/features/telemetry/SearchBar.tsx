// The search form (the query, time range with presets or a custom range, and with a language
// model, a question in plain words that proposes both) and the field filters as removable chips
// with a small form to add one with its JSON type.
import { useState, type SubmitEvent } from 'react';
import { QueryBox, QueryCheatSheet, type QueryProblem } from './QueryBox';
import { AskPanel, useAskAvailable } from './AskPanel';
import type { AskProposal } from './types';
import { Button, Field } from '../../components/ui';
import { isoToLocalInput, localInputToIso } from '../../lib/format';
import {
  encodeFilters,
  formatFilterValue,
  parseFilters,
  parseFilterValue,
  rangeOf,
  rangePresets,
  resolveRange,
  typeName,
  type TelemetryUrl,
  type ValueKind,
} from './search-state';

export function SearchForm({
  url,
  update,
  onSearch,
  problem,
  fields,
}: {
  url: TelemetryUrl;
  update: (changes: TelemetryUrl) => void;
  onSearch: () => void;
  /** Where the server could not read the query last searched, to underline. */
  problem: QueryProblem | undefined;
  /** Field names for suggestions. */
  fields: readonly string[];
}) {
  const [query, setQuery] = useState(url.q ?? '');
  const [from, setFrom] = useState(isoToLocalInput(url.since));
  const [to, setTo] = useState(isoToLocalInput(url.until));
  // Follow the URL when it changes from elsewhere (back button, a zoom on the histogram), adjusted
  // while rendering: each field takes the URL's value when that value changes.
  const [shown, setShown] = useState({ q: url.q, since: url.since, until: url.until });
  // A used proposal's custom range, held in the form (not the URL) until the analyst searches.
  const [draftCustom, setDraftCustom] = useState(false);
  const [asking, setAsking] = useState(false);
  const askAvailable = useAskAvailable();
  if (shown.q !== url.q || shown.since !== url.since || shown.until !== url.until) {
    setShown({ q: url.q, since: url.since, until: url.until });
    setDraftCustom(false);
    if (shown.q !== url.q) setQuery(url.q ?? '');
    if (shown.since !== url.since) setFrom(isoToLocalInput(url.since));
    if (shown.until !== url.until) setTo(isoToLocalInput(url.until));
  }
  const range = rangeOf(url);
  const custom = draftCustom || range.value === 'custom';

  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    update({
      q: query.trim(),
      ...(custom ? { range: 'custom', since: localInputToIso(from) ?? '', until: localInputToIso(to) ?? '' } : {}),
    });
    setDraftCustom(false);
    onSearch();
  };

  /** Fills the form with a proposal; the analyst runs it with Search. */
  const applyProposal = (proposal: AskProposal) => {
    setQuery(proposal.query);
    if (proposal.since || proposal.until) {
      setDraftCustom(true);
      setFrom(isoToLocalInput(proposal.since ?? undefined));
      setTo(isoToLocalInput(proposal.until ?? undefined));
    }
    setAsking(false);
    // The panel, and the button that had the focus, go: the focus goes to the filled query box.
    document.querySelector<HTMLInputElement>('[data-search]')?.focus();
  };

  const pickRange = (value: string) => {
    if (value === 'custom') {
      // Start the custom range from what was shown, so switching loses nothing.
      const now = Date.now();
      const current = resolveRange(url, now);
      update({
        range: 'custom',
        since: current.since ?? new Date(now - 86_400_000).toISOString(),
        until: new Date(now).toISOString(),
      });
    } else {
      update({ range: value === '24h' ? '' : value, since: '', until: '' });
    }
    setDraftCustom(false);
    onSearch();
  };

  return (
    <>
      {askAvailable && asking && <AskPanel onUse={applyProposal} />}
      <form className="filters telemetry-search" role="search" aria-label="Search telemetry" onSubmit={submit}>
        <div className="field query-field">
          <span className="field-label" aria-hidden="true">
            Query
          </span>
          <QueryBox value={query} onChange={setQuery} problem={problem} fields={fields} />
          <QueryCheatSheet onExample={setQuery} />
          {askAvailable && (
            <Button small aria-expanded={asking} onClick={() => setAsking(!asking)}>
              {asking ? 'Close question' : 'Ask in plain words'}
            </Button>
          )}
        </div>
        <Field label="Time range">
          <select value={custom ? 'custom' : range.value} onChange={(event) => pickRange(event.target.value)}>
            {rangePresets.map((preset) => (
              <option key={preset.value} value={preset.value}>
                {preset.label}
              </option>
            ))}
          </select>
        </Field>
        {custom && (
          <>
            <Field label="From">
              <input type="datetime-local" value={from} onChange={(event) => setFrom(event.target.value)} />
            </Field>
            <Field label="To">
              <input type="datetime-local" value={to} onChange={(event) => setTo(event.target.value)} />
            </Field>
          </>
        )}
        <Button variant="primary" type="submit">
          Search
        </Button>
      </form>
    </>
  );
}

export function FilterBar({
  url,
  update,
  fields,
}: {
  url: TelemetryUrl;
  update: (changes: TelemetryUrl) => void;
  fields: string[];
}) {
  const filters = parseFilters(url.f);
  const [path, setPath] = useState('');
  const [value, setValue] = useState('');
  const [kind, setKind] = useState<ValueKind>('auto');
  const [error, setError] = useState<string | undefined>();

  const add = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const field = path.trim();
    if (!field) {
      setError('Name a field, e.g. http.status');
      return;
    }
    if (/(^\.|\.\.|\.$)/.test(field)) {
      setError('Write nested fields as a.b.c');
      return;
    }
    const parsed = parseFilterValue(value, kind);
    if (parsed instanceof Error) {
      setError(parsed.message);
      return;
    }
    setError(undefined);
    update({ f: encodeFilters({ ...filters, [field]: parsed }) });
    setPath('');
    setValue('');
    setKind('auto');
  };
  const remove = (field: string) => {
    const { [field]: _removed, ...rest } = filters;
    update({ f: encodeFilters(rest) });
  };

  return (
    <div className="telemetry-filters">
      <ul className="chips filter-chips" aria-label="Field filters">
        {Object.entries(filters).map(([field, filterValue]) => (
          <li
            key={field}
            className="filter-chip"
            title={`${field} must equal ${formatFilterValue(filterValue)} (${typeName(filterValue)})`}
          >
            <span className="mono">{field}</span>
            <span className="faint">=</span>
            <span className="mono filter-value">{formatFilterValue(filterValue)}</span>
            <button
              type="button"
              aria-label={`Remove filter ${field} = ${formatFilterValue(filterValue)}`}
              onClick={() => remove(field)}
            >
              ×
            </button>
          </li>
        ))}
      </ul>
      <form className="add-filter" aria-label="Add a field filter" onSubmit={add}>
        <input
          type="text"
          aria-label="Filter field"
          placeholder="field, e.g. http.status"
          list="telemetry-fields"
          value={path}
          onChange={(event) => setPath(event.target.value)}
        />
        <span className="faint">=</span>
        <input
          type="text"
          aria-label="Filter value"
          placeholder="value"
          value={value}
          onChange={(event) => setValue(event.target.value)}
          disabled={kind === 'null'}
        />
        <select
          aria-label="Value type"
          value={kind}
          onChange={(event) => setKind(event.target.value as ValueKind)}
          title='Filters compare with the JSON type: 500 is not "500"'
        >
          <option value="auto">auto</option>
          <option value="text">text</option>
          <option value="number">number</option>
          <option value="boolean">boolean</option>
          <option value="null">null</option>
        </select>
        <Button type="submit">Add filter</Button>
        {error && (
          <span className="field-error" role="alert">
            {error}
          </span>
        )}
        <datalist id="telemetry-fields">
          {fields.map((field) => (
            <option key={field} value={field} />
          ))}
        </datalist>
      </form>
    </div>
  );
}
