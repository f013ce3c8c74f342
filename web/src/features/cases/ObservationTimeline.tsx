// A case's observations in time order, each expandable into its evidence: the triggering
// records with the fields the rule looked at and the raw record as stored
// (GET /v1/observations/{id}). Summary citations link here by anchor (#obs-<id>).
import { useEffect, useRef } from 'react';
import { useSession } from '../../app/session';
import { SeverityBadge } from '../../components/badges';
import { QueryView } from '../../components/QueryView';
import { Button } from '../../components/ui';
import { formatDateTime } from '../../lib/format';
import { useObservation } from '../observations/api';
import { EvidenceRecord } from '../observations/Evidence';
import type { ObservationDetail } from '../observations/types';
import type { Observation } from './types';
import { stringifyJson } from '../../lib/exact-json';

function fieldValue(value: unknown): string {
  return typeof value === 'string' ? value : stringifyJson(value);
}

function Evidence({ observation }: { observation: Observation }) {
  const { can } = useSession();
  const allowed = can('observations:read');
  const detail = useObservation(observation.id, allowed);
  if (!allowed) return <p className="muted">Reading the evidence needs the permission observations:read.</p>;
  return (
    <QueryView query={detail} loading="Loading evidence" error="Could not load the evidence">
      {(data) => <EvidenceList observation={observation} detail={data} />}
    </QueryView>
  );
}

function EvidenceList({ observation, detail }: { observation: Observation; detail: ObservationDetail }) {
  const evidence = detail.evidence;
  return (
    <div className="evidence">
      {detail.correlation && (
        <p className="muted">
          Correlation: {detail.correlation.value} events for{' '}
          {Object.entries(detail.correlation.group)
            .map(([name, value]) => `${name}=${fieldValue(value)}`)
            .join(', ') || 'the whole rule'}
          .
        </p>
      )}
      {evidence.length === 0 && (
        <p className="muted">This observation carries no records (written through the API without any).</p>
      )}
      {evidence.map((item, index) => (
        <EvidenceRecord key={item.record_id ?? index} evidence={item} index={index} collapsed />
      ))}
      {observation.record_ids.length > evidence.length && (
        <p className="faint">
          {observation.record_ids.length - evidence.length} more triggering records are not shown (the first{' '}
          {evidence.length} are).
        </p>
      )}
    </div>
  );
}

export function ObservationTimeline({
  observations,
  total,
  expanded,
  highlighted,
  onToggle,
}: {
  observations: Observation[];
  total: number;
  expanded: ReadonlySet<string>;
  highlighted: string | null;
  onToggle: (id: string) => void;
}) {
  const list = useRef<HTMLOListElement>(null);
  useEffect(() => {
    if (!highlighted) return;
    list.current
      ?.querySelector(`#obs-${CSS.escape(highlighted)}`)
      ?.scrollIntoView({ block: 'start', behavior: 'smooth' });
  }, [highlighted]);
  if (observations.length === 0) return <p className="muted">No observations.</p>;
  return (
    <>
      <ol className="timeline observation-timeline" ref={list}>
        {observations.map((observation, index) => {
          const open = expanded.has(observation.id);
          return (
            <li
              key={observation.id}
              id={`obs-${observation.id}`}
              className={`observation level-${observation.level} ${highlighted === observation.id ? 'is-highlighted' : ''}`}
            >
              <div className="observation-head">
                <span className="observation-index" title="Position in the case (summaries cite it)">
                  {index + 1}
                </span>
                <time
                  className="mono observation-time"
                  dateTime={observation.first_time}
                  title={observation.first_time}
                >
                  {formatDateTime(observation.first_time)}
                </time>
                <SeverityBadge value={observation.level} />
                <strong className="observation-title">{observation.rule.title}</strong>
              </div>
              <div className="observation-meta">
                {observation.host && <span>on {observation.host}</span>}
                {observation.techniques.map((technique) => (
                  <abbr key={technique.id} className="mono" title={technique.name ?? 'not in the catalogue'}>
                    {technique.id}
                  </abbr>
                ))}
                {observation.tactics.length > 0 && (
                  <span className="faint">{observation.tactics.map((tactic) => tactic.name).join(', ')}</span>
                )}
                <span className="faint">
                  {observation.record_ids.length} record{observation.record_ids.length === 1 ? '' : 's'}
                  {observation.source === 'external' ? ' · external' : ''}
                </span>
                <Button
                  small
                  variant="ghost"
                  aria-expanded={open}
                  aria-controls={`evidence-${observation.id}`}
                  onClick={() => onToggle(observation.id)}
                >
                  {open ? 'Hide evidence' : 'Show evidence'}
                </Button>
              </div>
              {open && (
                <div id={`evidence-${observation.id}`}>
                  <Evidence observation={observation} />
                </div>
              )}
            </li>
          );
        })}
      </ol>
      {total > observations.length && (
        <p className="faint">
          Showing the first {observations.length} of {total} observations.
        </p>
      )}
    </>
  );
}
