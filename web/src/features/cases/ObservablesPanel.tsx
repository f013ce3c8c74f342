// A case's observables, by type: each value with its tags (ioc, benign, internal toggle on and
// off), where it came from, how many other cases and devices hold it, and a search of the
// telemetry for it; analysts add and remove them. Below, the similar cases: the other cases that
// share its observables, linking to them.
import { useState } from 'react';
import { Link } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { useSession } from '../../app/session';
import { QueryView } from '../../components/QueryView';
import { StatusBadge } from '../../components/badges';
import { Badge, Button, ErrorState, Panel } from '../../components/ui';
import { caseKeys, useObservables, useSimilarCases } from './api';
import {
  knownObservableTags,
  observableTypeLabels,
  type Observable,
  type ObservableType,
  type SimilarCases,
} from './types';
import './observables.css';

const DAY_MS = 86_400_000;
const types = Object.keys(observableTypeLabels) as ObservableType[];

/** The telemetry page searching for the value, from a day before the case's first observation. */
function searchLink(query: string, since: string): string {
  const from = new Date(Date.parse(since) - DAY_MS).toISOString();
  return `/telemetry?${new URLSearchParams({ q: query, range: 'custom', since: from }).toString()}`;
}

function spread(item: Observable): string {
  const cases = `${item.other_cases} other case${item.other_cases === 1 ? '' : 's'}`;
  return `${cases} · ${item.devices} device${item.devices === 1 ? '' : 's'}`;
}

function ObservableRow({
  item,
  caseId,
  since,
  canWrite,
  canSearch,
}: {
  item: Observable;
  caseId: string;
  since: string;
  canWrite: boolean;
  canSearch: boolean;
}) {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: caseKeys.all });
  const path = `/v1/cases/${caseId}/observables/${item.id}`;
  const tag = useMutation({
    mutationFn: (tags: string[]) => api.patch<Observable>(path, { tags }),
    onSuccess: () => void refresh(),
  });
  const remove = useMutation({ mutationFn: () => api.delete(path), onSuccess: () => void refresh() });
  const toggle = (name: string) =>
    tag.mutate(item.tags.includes(name) ? item.tags.filter((t) => t !== name) : [...item.tags, name]);
  const others = item.tags.filter((name) => !(knownObservableTags as readonly string[]).includes(name));
  return (
    <li className="observable" aria-label={`${item.type} ${item.value}`}>
      <div className="observable-line">
        <code className="observable-value" title={item.value}>
          {item.value}
        </code>
        {others.map((name) => (
          <Badge key={name}>{name}</Badge>
        ))}
      </div>
      <div className="observable-meta faint">
        {item.source === 'analyst' ? `added by ${item.created_by ?? 'an analyst'}` : 'from the evidence'} ·{' '}
        <span title="Other cases holding it · devices of the cases holding it">{spread(item)}</span>
        {canSearch && item.search_query && (
          <>
            {' · '}
            <Link to={searchLink(item.search_query, since)}>Search telemetry</Link>
          </>
        )}
      </div>
      <div className="observable-actions" role="group" aria-label={`Tags of ${item.value}`}>
        {knownObservableTags.map((name) => (
          <Button
            key={name}
            small
            variant={item.tags.includes(name) ? 'primary' : 'ghost'}
            aria-pressed={item.tags.includes(name)}
            disabled={!canWrite || tag.isPending}
            onClick={() => toggle(name)}
          >
            {name}
          </Button>
        ))}
        {canWrite && (
          <Button
            small
            variant="ghost"
            aria-label={`Remove ${item.value}`}
            disabled={remove.isPending}
            onClick={() => remove.mutate()}
          >
            Remove
          </Button>
        )}
      </div>
      {(tag.isError || remove.isError) && (
        <ErrorState error={tag.error ?? remove.error} title="The observable was not changed" />
      )}
    </li>
  );
}

function AddObservable({ caseId, onDone }: { caseId: string; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [type, setType] = useState<ObservableType>('ip');
  const [value, setValue] = useState('');
  const add = useMutation({
    mutationFn: () => api.post<Observable>(`/v1/cases/${caseId}/observables`, { type, value: value.trim() }),
    onSuccess: () => {
      setValue('');
      void queryClient.invalidateQueries({ queryKey: caseKeys.all });
      onDone();
    },
  });
  return (
    <form
      className="observable-add"
      aria-label="Add an observable"
      onSubmit={(event) => {
        event.preventDefault();
        if (value.trim()) add.mutate();
      }}
    >
      <select aria-label="Type" value={type} onChange={(event) => setType(event.target.value as ObservableType)}>
        {types.map((name) => (
          <option key={name} value={name}>
            {observableTypeLabels[name]}
          </option>
        ))}
      </select>
      <input
        aria-label="Value"
        value={value}
        maxLength={8192}
        placeholder="203.0.113.44, evil.example.com, a SHA-256…"
        onChange={(event) => setValue(event.target.value)}
        autoFocus
      />
      <Button type="submit" variant="primary" small disabled={!value.trim() || add.isPending}>
        Add
      </Button>
      <Button small onClick={onDone}>
        Cancel
      </Button>
      {add.isError && <ErrorState error={add.error} title="The observable was not added" />}
    </form>
  );
}

function SimilarList({ similar }: { similar: SimilarCases }) {
  if (similar.cases.length === 0) return <p className="muted">No other case shares its observables.</p>;
  return (
    <ul className="similar-cases">
      {similar.cases.map((other) => (
        <li key={other.id}>
          <div className="similar-line">
            <Link to={`/cases/${other.number}`}>
              #{other.number} {other.title}
            </Link>
            <StatusBadge value={other.status} />
          </div>
          <div className="faint">
            Shares{' '}
            {other.shared_observables.map((shared, index) => (
              <span key={`${shared.type}:${shared.value}`}>
                {index > 0 && ', '}
                <code>{shared.value}</code>
              </span>
            ))}
            {other.shared_observable_count > other.shared_observables.length &&
              ` and ${other.shared_observable_count - other.shared_observables.length} more`}
            {other.shared_techniques.length > 0 && ` · techniques ${other.shared_techniques.join(', ')}`}
          </div>
        </li>
      ))}
    </ul>
  );
}

export function ObservablesPanel({ caseId, since }: { caseId: string; since: string }) {
  const { can } = useSession();
  const canWrite = can('cases:write');
  const canSearch = can('telemetry:read');
  const [adding, setAdding] = useState(false);
  const observables = useObservables(caseId);
  const similar = useSimilarCases(caseId);
  const count = observables.data?.observables.length;
  return (
    <Panel
      title={`Observables${count === undefined ? '' : ` (${count})`}`}
      className="observables-panel"
      actions={
        canWrite &&
        !adding && (
          <Button small onClick={() => setAdding(true)}>
            Add observable
          </Button>
        )
      }
    >
      {adding && <AddObservable caseId={caseId} onDone={() => setAdding(false)} />}
      <QueryView
        query={observables}
        loading="Loading the observables"
        error="Could not load the observables"
        empty={(data) => data.observables.length === 0 && 'The evidence names no address, domain, hash or account yet.'}
      >
        {(data) => (
          <div className="observable-groups">
            {types.map((type) => {
              const items = data.observables.filter((item) => item.type === type);
              if (items.length === 0) return null;
              return (
                <section key={type} aria-label={observableTypeLabels[type]}>
                  <h3 className="observable-type">
                    {observableTypeLabels[type]} <span className="faint">({items.length})</span>
                  </h3>
                  <ul className="observable-list">
                    {items.map((item) => (
                      <ObservableRow
                        key={item.id}
                        item={item}
                        caseId={caseId}
                        since={since}
                        canWrite={canWrite}
                        canSearch={canSearch}
                      />
                    ))}
                  </ul>
                </section>
              );
            })}
          </div>
        )}
      </QueryView>
      <h3 className="observable-type">Similar cases</h3>
      <QueryView query={similar} loading="Loading similar cases" error="Could not load similar cases">
        {(data) => <SimilarList similar={data} />}
      </QueryView>
    </Panel>
  );
}
