// The analyst's landing page: what needs attention now (open, new and severe cases, the last
// 24 hours of observations and devices), the last two weeks at a glance, the highest-scoring open
// cases and the newest observations. Every figure links to the list it summarises; all of it
// refreshes every 30 s.
import type { ReactNode } from 'react';
import { Link, useNavigate } from 'react-router';
import { useQueryClient, type Query } from '@tanstack/react-query';
import { useSession } from '../../app/session';
import { SeverityBadge } from '../../components/badges';
import { QueryView } from '../../components/QueryView';
import { Empty, PageHeader, Panel, RefreshButton, Time } from '../../components/ui';
import { errorMessage } from '../../api/client';
import { formatNumber } from '../../lib/format';
import { useCaseCounts, useCaseSearch } from '../cases/api';
import { CaseSummaryTable } from '../cases/CaseSummaryTable';
import { openCaseCount } from '../cases/types';
import { useObservationList, useObservationStats } from '../observations/api';
import { CasesByStatusChart, ObservationsPerDayChart } from './OverviewCharts';
import { REFRESH_MS, topOpenCases, useRecentDevices } from './api';
import './overview.css';

/** The queries behind the overview's figures (Refresh now asks them all again). */
const shownHere = (query: Query) => ['cases', 'observations', 'devices'].includes(String(query.queryKey[0]));

interface TileState {
  isPending: boolean;
  isError: boolean;
  error: unknown;
}

function Tile({
  to,
  label,
  value,
  detail,
  state,
  tone,
}: {
  to: string;
  label: string;
  value: ReactNode;
  detail?: ReactNode;
  state: TileState;
  tone?: 'danger' | 'accent';
}) {
  return (
    <Link to={to} className={`tile ${tone ? `tile-${tone}` : ''}`} aria-busy={state.isPending}>
      <span className="tile-label">{label}</span>
      <span className="tile-value">
        {state.isPending ? (
          <span className="faint">…</span>
        ) : state.isError ? (
          <span className="faint" title={errorMessage(state.error)}>
            —
          </span>
        ) : (
          value
        )}
      </span>
      <span className="tile-detail">{state.isError ? 'Could not load' : detail}</span>
    </Link>
  );
}

function Tiles() {
  const { can } = useSession();
  const counts = useCaseCounts({ refetchInterval: REFRESH_MS, enabled: can('cases:read') });
  const stats = useObservationStats(14, { refetchInterval: REFRESH_MS, enabled: can('observations:read') });
  const devices = useRecentDevices(can('devices:read'));
  const c = counts.data;
  const open = c ? openCaseCount(c) : 0;
  const severe = c ? c.open_by_severity.high + c.open_by_severity.critical : 0;
  const recent = stats.data?.last_24_hours;
  return (
    <div className="tiles" aria-label="Key figures" role="group">
      {can('cases:read') && (
        <>
          <Tile
            to="/cases"
            label="Open cases"
            value={formatNumber(open)}
            detail={
              c && `${formatNumber(c.by_status.in_progress)} in progress, ${formatNumber(c.by_status.on_hold)} on hold`
            }
            state={counts}
          />
          <Tile
            to="/cases?status=new"
            label="New cases"
            value={formatNumber(c?.by_status.new)}
            detail="Not yet picked up"
            state={counts}
            tone={c && c.by_status.new > 0 ? 'accent' : undefined}
          />
          <Tile
            to="/cases?severity=high,critical"
            label="Critical / high open"
            value={formatNumber(severe)}
            detail={
              c &&
              `${formatNumber(c.open_by_severity.critical)} critical, ${formatNumber(c.open_by_severity.high)} high`
            }
            state={counts}
            tone={severe > 0 ? 'danger' : undefined}
          />
        </>
      )}
      {can('observations:read') && (
        <Tile
          to="/observations?range=24h"
          label="Observations, 24 h"
          value={formatNumber(recent?.total)}
          detail={recent && `${formatNumber(recent.critical + recent.high)} high or critical`}
          state={stats}
        />
      )}
      {can('devices:read') && (
        <Tile
          to="/devices?seen=24h"
          label="Devices seen, 24 h"
          value={devices.data ? `${formatNumber(devices.data.count)}${devices.data.more ? '+' : ''}` : ''}
          detail="Sent telemetry"
          state={devices}
        />
      )}
    </div>
  );
}

function ObservationsChartPanel() {
  const stats = useObservationStats(14, { refetchInterval: REFRESH_MS });
  return (
    <Panel title="Observations per day by level" actions={<Link to="/observations?range=14d">Last 14 days →</Link>}>
      <QueryView query={stats} loading="Counting observations" error="Could not count observations">
        {(data) => <ObservationsPerDayChart stats={data} />}
      </QueryView>
    </Panel>
  );
}

function CasesChartPanel() {
  const counts = useCaseCounts({ refetchInterval: REFRESH_MS });
  return (
    <Panel title="Cases by status" actions={<Link to="/cases?status=all">All cases →</Link>}>
      <QueryView query={counts} loading="Counting cases" error="Could not count cases">
        {(data) => <CasesByStatusChart counts={data} />}
      </QueryView>
    </Panel>
  );
}

function TopCases() {
  const cases = useCaseSearch(topOpenCases, { refetchInterval: REFRESH_MS });
  return (
    <Panel
      title="Highest-scoring open cases"
      className="flush"
      actions={<Link to="/cases?sort=score">By score →</Link>}
    >
      <QueryView
        query={cases}
        loading="Loading cases"
        error="Could not load cases"
        empty={(data) => data.cases.length === 0 && 'No open cases. Everything is handled.'}
      >
        {(data) => <CaseSummaryTable cases={data.cases} label="Highest-scoring open cases" />}
      </QueryView>
    </Panel>
  );
}

function RecentObservations() {
  const navigate = useNavigate();
  const list = useObservationList({ limit: 10 }, { refetchInterval: REFRESH_MS });
  return (
    <Panel title="Recent observations" className="flush" actions={<Link to="/observations">All observations →</Link>}>
      <QueryView
        query={list}
        loading="Loading observations"
        error="Could not load observations"
        empty={(data) => data.observations.length === 0 && 'No observations yet.'}
      >
        {(data) => (
          <div className="table-wrap">
            <table className="table" aria-label="Recent observations">
              <thead>
                <tr>
                  <th>Detected</th>
                  <th>Level</th>
                  <th>Rule</th>
                </tr>
              </thead>
              <tbody>
                {data.observations.map((observation) => (
                  <tr
                    key={observation.id}
                    className="clickable"
                    onClick={() => void navigate(`/observations?id=${observation.id}`)}
                  >
                    <td className="nowrap">
                      <Time iso={observation.created_at} />
                    </td>
                    <td>
                      <SeverityBadge value={observation.level} />
                    </td>
                    <td className="fill" title={observation.rule.title}>
                      <Link to={`/observations?id=${observation.id}`} onClick={(event) => event.stopPropagation()}>
                        {observation.rule.title}
                      </Link>
                      {observation.host && <span className="subline">on {observation.host}</span>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </QueryView>
    </Panel>
  );
}

export default function OverviewPage() {
  const { can, tenant } = useSession();
  const client = useQueryClient();
  const cases = can('cases:read');
  const observations = can('observations:read');
  return (
    <>
      <PageHeader
        title="Overview"
        subtitle={<>{tenant?.name} · refreshes every 30 seconds</>}
        actions={
          <RefreshButton label="Refresh now" onRefresh={() => client.invalidateQueries({ predicate: shownHere })} />
        }
      />
      <Tiles />
      {(cases || observations) && (
        <div className={`grid ${cases && observations ? 'grid-overview' : ''}`}>
          {observations && <ObservationsChartPanel />}
          {cases && <CasesChartPanel />}
        </div>
      )}
      {(cases || observations) && (
        <div className={`grid ${cases && observations ? 'grid-2' : ''}`}>
          {cases && <TopCases />}
          {observations && <RecentObservations />}
        </div>
      )}
      {!cases && !observations && (
        <Empty>Your role reads neither cases nor observations; the other pages are in the navigation.</Empty>
      )}
    </>
  );
}
