// A case's timeline: its observations and their evidence (the process starts and connections of
// their triggering records) across its devices, oldest first. Summary citations of evidence rows
// land here by anchor (#ev-<id>) and are highlighted.
import { useEffect, useRef } from 'react';
import { SeverityBadge } from '../../components/badges';
import { QueryView } from '../../components/QueryView';
import { formatDateTime } from '../../lib/format';
import { useCaseTimeline } from './api';
import type { TimelineEntry } from './types';
import { ObservationRefs, type ObservationLookup } from './ObservationRefs';

const kindLabel = { observation: 'Observation', process: 'Process', connection: 'Connection' } as const;

function What({ entry }: { entry: TimelineEntry }) {
  if (entry.observation) return <strong>{entry.observation.rule_title}</strong>;
  if (entry.process)
    return (
      <>
        <span className="mono">{entry.process.name ?? 'unknown process'}</span>{' '}
        <span className="faint">
          PID {entry.process.pid ?? '?'}, parent {entry.process.parent_name ?? '?'}
          {entry.process.user ? `, user ${entry.process.user}` : ''}
        </span>
        {entry.process.command_line && <code className="process-command">{entry.process.command_line}</code>}
      </>
    );
  if (entry.connection) {
    const c = entry.connection;
    const destination =
      c.destination_hostname && c.destination_hostname !== '-' ? c.destination_hostname : c.destination_ip;
    return (
      <>
        <span className="mono">{c.process_name ?? 'unknown process'}</span> →{' '}
        <span className="mono">
          {destination ?? '?'}:{c.destination_port ?? '?'}
        </span>{' '}
        <span className="faint">{[c.protocol, c.direction].filter(Boolean).join(' ')}</span>
      </>
    );
  }
  return null;
}

export function CaseTimelineView({
  caseId,
  lookup,
  highlighted,
}: {
  caseId: string;
  lookup: ObservationLookup;
  /** An evidence id a summary citation pointed at. */
  highlighted: string | null;
}) {
  const timeline = useCaseTimeline(caseId);
  const list = useRef<HTMLOListElement>(null);
  const loaded = timeline.data !== undefined;
  useEffect(() => {
    if (!highlighted || !loaded) return;
    list.current
      ?.querySelector(`#ev-${CSS.escape(highlighted)}`)
      ?.scrollIntoView({ block: 'center', behavior: 'smooth' });
  }, [highlighted, loaded]);
  return (
    <QueryView
      query={timeline}
      loading="Loading the timeline"
      error="Could not load the timeline"
      empty={(data) => data.entries.length === 0 && 'No observations.'}
    >
      {(data) => (
        <>
          <ol className="case-timeline" ref={list}>
            {data.entries.map((entry) => (
              <li
                key={entry.id}
                id={entry.kind === 'observation' ? undefined : `ev-${entry.id}`}
                data-entry-id={entry.id}
                data-kind={entry.kind}
                className={`case-timeline-entry kind-${entry.kind}${highlighted === entry.id ? ' is-highlighted' : ''}`}
              >
                <time dateTime={entry.time} className="case-timeline-time">
                  {formatDateTime(entry.time)}
                </time>
                <span className="case-timeline-kind">{kindLabel[entry.kind]}</span>
                <span className="case-timeline-host mono">{entry.host ?? '—'}</span>
                <div className="case-timeline-what">
                  {entry.observation && <SeverityBadge value={entry.observation.level} />} <What entry={entry} />
                  {entry.kind !== 'observation' && entry.observation_ids.length > 0 && (
                    <ObservationRefs ids={entry.observation_ids} lookup={lookup} label="Evidence of" />
                  )}
                  {entry.kind === 'observation' && (
                    <ObservationRefs ids={entry.observation_ids} lookup={lookup} label="Observation" />
                  )}
                </div>
              </li>
            ))}
          </ol>
          {data.truncated && <p className="faint">The timeline is cut at its bound; the oldest entries are shown.</p>}
        </>
      )}
    </QueryView>
  );
}
