// Saved searches on the telemetry page: pick one of yours to run it (its query, range, order,
// columns and filters go into the URL), save what is shown under a name (a name saved again is
// replaced), or delete the one picked.
import { useState, type SubmitEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, errorMessage } from '../../api/client';
import { Button } from '../../components/ui';
import type { SavedSearch, SavedSearchList } from './types';
import { encodeColumns, encodeFilters, parseColumns, parseFilters, type TelemetryUrl } from './search-state';

const key = ['telemetry', 'saved-searches'];

/** The URL of the telemetry page showing a saved search. */
function urlOf(saved: SavedSearch): TelemetryUrl {
  const range = saved.time_range ?? '24h';
  return {
    q: saved.query,
    range: range === '24h' ? '' : range,
    since: range === 'custom' ? (saved.since ?? '') : '',
    until: range === 'custom' ? (saved.until ?? '') : '',
    order: saved.order === 'asc' ? 'asc' : '',
    cols: saved.columns ? encodeColumns(saved.columns) : '',
    f: encodeFilters(saved.filters ?? {}),
  };
}

export function SavedSearches({ url, update }: { url: TelemetryUrl; update: (changes: TelemetryUrl) => void }) {
  const client = useQueryClient();
  const list = useQuery({
    queryKey: key,
    queryFn: ({ signal }) => api.get<SavedSearchList>('/v1/telemetry/saved-searches', { signal }),
    refetchOnWindowFocus: false,
  });
  const [picked, setPicked] = useState('');
  const [naming, setNaming] = useState(false);
  const [name, setName] = useState('');
  const save = useMutation({
    mutationFn: () =>
      api.post<SavedSearch>('/v1/telemetry/saved-searches', {
        name,
        query: url.q ?? '',
        time_range: url.range ?? '24h',
        ...(url.range === 'custom' && url.since ? { since: url.since } : {}),
        ...(url.range === 'custom' && url.until ? { until: url.until } : {}),
        order: url.order === 'asc' ? 'asc' : 'desc',
        columns: parseColumns(url.cols),
        filters: parseFilters(url.f),
      }),
    onSuccess: (saved) => {
      setNaming(false);
      setName('');
      setPicked(saved.id);
      void client.invalidateQueries({ queryKey: key });
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => api.delete(`/v1/telemetry/saved-searches/${encodeURIComponent(id)}`),
    onSuccess: () => {
      setPicked('');
      void client.invalidateQueries({ queryKey: key });
    },
  });
  const searches = list.data?.saved_searches ?? [];
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (name.trim()) save.mutate();
  };

  return (
    <div className="saved-searches toolbar">
      <select
        aria-label="Saved searches"
        value={picked}
        onChange={(event) => {
          setPicked(event.target.value);
          const saved = searches.find((search) => search.id === event.target.value);
          if (saved) update(urlOf(saved));
        }}
      >
        <option value="">{searches.length === 0 ? 'No saved searches' : 'Saved searches…'}</option>
        {searches.map((search) => (
          <option key={search.id} value={search.id}>
            {search.name}
          </option>
        ))}
      </select>
      {picked && (
        <Button small variant="ghost" onClick={() => remove.mutate(picked)} disabled={remove.isPending}>
          Delete saved search
        </Button>
      )}
      {naming ? (
        <form className="toolbar" aria-label="Save this search" onSubmit={submit}>
          <input
            type="text"
            aria-label="Saved search name"
            placeholder="Name"
            maxLength={100}
            value={name}
            autoFocus
            onChange={(event) => setName(event.target.value)}
          />
          <Button small type="submit" disabled={save.isPending || !name.trim()}>
            Save
          </Button>
          <Button small variant="ghost" onClick={() => setNaming(false)}>
            Cancel
          </Button>
        </form>
      ) : (
        <Button small variant="ghost" onClick={() => setNaming(true)}>
          Save search…
        </Button>
      )}
      {(save.error ?? remove.error) && (
        <span className="field-error" role="alert">
          {errorMessage(save.error ?? remove.error)}
        </span>
      )}
    </div>
  );
}
