// One observation beside the list (a flyout, as Elastic's alert details): what matched, where and
// when, the case it is in, and the evidence records. The list stays usable: j/k move through the
// rows and the flyout follows; Escape closes it.
import { Link } from 'react-router';
import { useSession } from '../../app/session';
import { SeverityBadge, StatusBadge } from '../../components/badges';
import { CopyButton } from '../../components/CopyButton';
import { QueryView } from '../../components/QueryView';
import { Badge, Button, Time } from '../../components/ui';
import { formatDateTime, humanize } from '../../lib/format';
import { useHotkeys } from '../../lib/hotkeys';
import { useObservation, useObservationCases } from './api';
import { EvidenceRecord } from './Evidence';
import type { ObservationDetail } from './types';

function CaseLink({ id }: { id: string }) {
  const { can } = useSession();
  const allowed = can('cases:read');
  const cases = useObservationCases([id], allowed);
  if (!allowed) return <span className="faint">Needs cases:read</span>;
  if (cases.isPending) return <span className="faint">Looking up…</span>;
  if (cases.isError) return <span className="faint">Could not look it up</span>;
  const kase = cases.data.cases[id];
  if (!kase) return <span className="faint">Not in a case yet</span>;
  return (
    <span className="observation-case">
      <Link to={`/cases/${kase.id}`}>
        #{kase.number} {kase.title}
      </Link>{' '}
      <StatusBadge value={kase.status} />
    </span>
  );
}

function Facts({
  observation,
  onFilter,
}: {
  observation: ObservationDetail;
  onFilter: (changes: Record<string, string>) => void;
}) {
  const { host } = observation;
  return (
    <dl className="facts observation-facts">
      <dt>Level</dt>
      <dd>
        <SeverityBadge value={observation.level} />
      </dd>
      <dt>Case</dt>
      <dd>
        <CaseLink id={observation.id} />
      </dd>
      <dt>Rule</dt>
      <dd>
        <button
          type="button"
          className="link-button"
          onClick={() => onFilter({ rule_id: observation.rule.id })}
          title="Show this rule's observations"
        >
          {observation.rule.title}
        </button>
        <div className="faint mono">
          {observation.rule.id} · {observation.rule.type}
          {observation.rule.author && ` · by ${observation.rule.author}`}
        </div>
      </dd>
      <dt>Techniques</dt>
      <dd className="chips">
        {observation.techniques.length === 0 && <span className="faint">—</span>}
        {observation.techniques.map((technique) => (
          <button
            key={technique.id}
            type="button"
            className="chip-button"
            onClick={() => onFilter({ technique: technique.id })}
            title={`Show ${technique.id} observations`}
          >
            <span className="mono">{technique.id}</span> {technique.name ?? ''}
          </button>
        ))}
      </dd>
      {observation.tactics.length > 0 && (
        <>
          <dt>Tactics</dt>
          <dd>{observation.tactics.map((tactic) => tactic.name).join(', ')}</dd>
        </>
      )}
      <dt>Host</dt>
      <dd>
        {host ? (
          <>
            <button
              type="button"
              className="link-button"
              onClick={() => onFilter({ host })}
              title="Show this host's observations"
            >
              {host}
            </button>{' '}
            <Link to={`/devices?name=${encodeURIComponent(host)}`} className="faint">
              device
            </Link>
          </>
        ) : (
          <span className="faint">unknown</span>
        )}
      </dd>
      <dt>First record</dt>
      <dd>
        {formatDateTime(observation.first_time)}{' '}
        <span className="faint">
          (<Time iso={observation.first_time} />)
        </span>
      </dd>
      {observation.last_time !== observation.first_time && (
        <>
          <dt>Last record</dt>
          <dd>{formatDateTime(observation.last_time)}</dd>
        </>
      )}
      <dt>Stored</dt>
      <dd>{formatDateTime(observation.created_at)}</dd>
      <dt>Source</dt>
      <dd>
        {humanize(observation.source)}
        {observation.created_by && <span className="faint"> by {observation.created_by}</span>}
      </dd>
      {observation.correlation && (
        <>
          <dt>Correlation</dt>
          <dd>
            {observation.correlation.value} events
            {Object.keys(observation.correlation.group).length > 0 &&
              ` for ${Object.entries(observation.correlation.group)
                .map(([name, value]) => `${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
                .join(', ')}`}
          </dd>
        </>
      )}
      <dt>Id</dt>
      <dd className="mono">
        {observation.id} <CopyButton value={observation.id} />
      </dd>
    </dl>
  );
}

export function ObservationDrawer({
  id,
  onClose,
  onFilter,
}: {
  id: string;
  onClose: () => void;
  onFilter: (changes: Record<string, string>) => void;
}) {
  const observation = useObservation(id);
  useHotkeys({ Escape: onClose });
  const data = observation.data;
  return (
    <aside className="observation-drawer" role="dialog" aria-modal="false" aria-label="Observation details">
      <header className="observation-drawer-header">
        <div className="observation-drawer-title">
          {data && <SeverityBadge value={data.level} />}
          <h2>{data ? data.rule.title : 'Observation'}</h2>
        </div>
        <Button small variant="ghost" aria-label="Close details" onClick={onClose} title="Close (Esc)">
          ×
        </Button>
      </header>
      <div className="observation-drawer-body">
        <QueryView query={observation} loading="Loading the observation" error="Could not load the observation">
          {(data) => (
            <>
              <Facts observation={data} onFilter={onFilter} />
              <h3 className="observation-section-title">
                Evidence <Badge>{data.record_ids.length}</Badge>
              </h3>
              {data.evidence.length === 0 && <p className="muted">No records: written through the API without any.</p>}
              {data.evidence.map((item, index) => (
                <EvidenceRecord key={item.record_id ?? `fields-${index}`} evidence={item} index={index} />
              ))}
              {data.record_ids.length > data.evidence.length && (
                <p className="faint">
                  {data.record_ids.length - data.evidence.length} more records are cited (ids{' '}
                  {data.record_ids.slice(data.evidence.length, data.evidence.length + 10).join(', ')}
                  {data.record_ids.length > data.evidence.length + 10 ? ', …' : ''}); the first {data.evidence.length}{' '}
                  are shown.
                </p>
              )}
            </>
          )}
        </QueryView>
      </div>
    </aside>
  );
}
