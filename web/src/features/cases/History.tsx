// Every change to a case, newest first: who (person, token or the grouping system), when, what.
// Times read as dates, cases as their numbers, actions in one sentence-case wording.
import { QueryView } from '../../components/QueryView';
import { Button, Time } from '../../components/ui';
import { formatDateTime, humanize } from '../../lib/format';
import { useHistory, useMembers } from './api';
import type { HistoryEntry } from './types';

/** Internal keys a person gains nothing from (the grouping bucket, a comment's id). */
const hidden = new Set(['group_key', 'comment_id']);

/** What each action reads as. */
const actionLabels: Record<string, string> = {
  created: 'Case created',
  observations_added: 'Observations added',
  updated: 'Case updated',
  commented: 'Comment added',
  comment_edited: 'Comment edited',
  comment_deleted: 'Comment deleted',
  merged: 'Cases merged into this one',
  merged_into: 'Merged into another case',
  rescored: 'Score recomputed',
  observable_added: 'Observable added',
  observable_tagged: 'Observable tagged',
  observable_removed: 'Observable removed',
};

/** Field names as a person reads them. */
const fieldLabels: Record<string, string> = {
  observation_ids: 'Observations',
  observation_count: 'Observations',
  closed_at: 'Closed',
  assignee_id: 'Assignee',
  target: 'Merged into',
  sources: 'Merged from',
};

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?Z$/;

interface Lookups {
  /** User id → name. */
  people: ReadonlyMap<string, string>;
  observationIndex: ReadonlyMap<string, { position: number; title: string }>;
  onCite: (observationId: string) => void;
}

function show(value: unknown, people: ReadonlyMap<string, string>): string {
  if (value === null || value === undefined || value === '') return 'none';
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.map((item) => show(item, people)).join(', ');
  const person = typeof value === 'string' ? people.get(value) : undefined;
  if (person !== undefined) return person;
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    if (typeof record.number === 'number')
      return typeof record.observation_count === 'number'
        ? `case #${record.number} (${record.observation_count} observation${record.observation_count === 1 ? '' : 's'})`
        : `case #${record.number}`;
    // An observable: its type and value.
    if (typeof record.type === 'string' && typeof record.value === 'string') return `${record.type} ${record.value}`;
    if (typeof record.name === 'string') return record.name;
    if (typeof record.label === 'string') return record.label;
    if (typeof record.email === 'string') return record.email;
    return JSON.stringify(value);
  }
  // What is left is a JSON string, number or boolean.
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (ISO_TIME.test(text)) return formatDateTime(text);
  return /^[a-z]+(_[a-z]+)+$/.test(text) ? humanize(text) : text;
}

function isFromTo(value: unknown): value is { from: unknown; to: unknown } {
  return typeof value === 'object' && value !== null && 'from' in value && 'to' in value;
}

function ObservationLinks({ ids, lookups }: { ids: unknown[]; lookups: Lookups }) {
  return (
    <span className="history-value">
      {ids.map((id) => {
        const known = typeof id === 'string' ? lookups.observationIndex.get(id) : undefined;
        return known ? (
          <a
            key={String(id)}
            href={`#obs-${String(id)}`}
            className="citation"
            title={`Observation ${known.position}: ${known.title}`}
            onClick={(event) => {
              event.preventDefault();
              lookups.onCite(String(id));
            }}
          >
            {known.position}
          </a>
        ) : (
          <code key={String(id)}>{String(id)} </code>
        );
      })}
    </span>
  );
}

function Changes({ changes, lookups }: { changes: HistoryEntry['changes']; lookups: Lookups }) {
  const entries = Object.entries(changes).filter(([field]) => !hidden.has(field));
  if (entries.length === 0) return null;
  return (
    <ul className="history-changes">
      {entries.map(([field, value]) => (
        <li key={field}>
          <span className="muted">{fieldLabels[field] ?? humanize(field)}:</span>{' '}
          {field === 'observation_ids' && Array.isArray(value) ? (
            <ObservationLinks ids={value} lookups={lookups} />
          ) : isFromTo(value) ? (
            <>
              <span className="history-from">{show(value.from, lookups.people)}</span> →{' '}
              <strong>{show(value.to, lookups.people)}</strong>
            </>
          ) : (
            <span className="history-value">{show(value, lookups.people).slice(0, 300)}</span>
          )}
        </li>
      ))}
    </ul>
  );
}

export function History({ caseId, observationIndex, onCite }: { caseId: string } & Omit<Lookups, 'people'>) {
  const history = useHistory(caseId);
  const members = useMembers();
  const people = new Map((members.data?.users ?? []).map((user) => [user.id, user.name]));
  const lookups: Lookups = { people, observationIndex, onCite };
  return (
    <QueryView
      query={history}
      loading="Loading history"
      error="Could not load the history"
      empty={(data) => data.pages[0]?.history.length === 0 && 'No changes yet.'}
    >
      {(data) => (
        <>
          <ol className="timeline history" aria-label="Case history, newest first">
            {data.pages
              .flatMap((page) => page.history)
              .map((entry, index) => (
                <li key={index}>
                  <div>
                    <strong>{actionLabels[entry.action] ?? humanize(entry.action)}</strong>{' '}
                    <span className="muted">
                      by {entry.actor.type === 'system' ? `${entry.actor.label} (system)` : entry.actor.label}
                    </span>{' '}
                    <span className="faint">
                      <Time iso={entry.at} />
                    </span>
                  </div>
                  <Changes changes={entry.changes} lookups={lookups} />
                </li>
              ))}
          </ol>
          {history.hasNextPage && (
            <Button small onClick={() => void history.fetchNextPage()} disabled={history.isFetchingNextPage}>
              {history.isFetchingNextPage ? 'Loading…' : 'Load more'}
            </Button>
          )}
        </>
      )}
    </QueryView>
  );
}
