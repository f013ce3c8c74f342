// Observations: every detection (and approved external write) of the tenant, newest first, with
// the API's filters kept in the URL, cursor pages, j/k/Enter, and a flyout with the evidence. The
// case column links each observation to the case it was grouped into.
import { useEffect, useEffectEvent, useMemo } from 'react';
import { Link } from 'react-router';
import { useSession } from '../../app/session';
import { SeverityBadge, TechniqueIds } from '../../components/badges';
import { Pager, useCursorPager } from '../../components/paging';
import { QueryView } from '../../components/QueryView';
import { rowKeys, useRowNavigation } from '../../components/row-navigation';
import { KeyHints, PageHeader, RefreshButton, Time } from '../../components/ui';
import { TECHNIQUE_ID } from '../../lib/attack';
import { rangeStart, useRangeNow } from '../../lib/time-range';
import { useUrlFilters } from '../../lib/url-state';
import { useObservationCases, useObservationList, type ObservationQuery } from './api';
import { ObservationDrawer } from './ObservationDrawer';
import { filterNames, ObservationFilterBar, type ObservationUrlFilters } from './ObservationFilters';
import type { Observation, ObservationCase } from './types';
import './observations.css';

const PAGE_SIZE = 50;

/** The API query for the URL's filters; a preset range is measured back from `now`. */
function queryOf(filters: ObservationUrlFilters, now: number): ObservationQuery {
  const since = filters.since ?? rangeStart(filters.range, now);
  return {
    ...(since ? { since } : {}),
    ...(filters.until ? { until: filters.until } : {}),
    ...(filters.level ? { level: filters.level } : {}),
    ...(filters.rule_id ? { rule_id: filters.rule_id } : {}),
    ...(filters.technique && TECHNIQUE_ID.test(filters.technique)
      ? { technique: filters.technique.toUpperCase() }
      : {}),
    ...(filters.host ? { host: filters.host } : {}),
    ...(filters.source ? { source: filters.source } : {}),
  };
}

function Row({
  observation,
  index,
  selected,
  open,
  kase,
  showCases,
  compact,
  onOpen,
}: {
  observation: Observation;
  index: number;
  selected: boolean;
  open: boolean;
  kase: ObservationCase | undefined;
  showCases: boolean;
  /** Beside the flyout: techniques and source make room (the flyout shows them). */
  compact: boolean;
  onOpen: () => void;
}) {
  return (
    <tr
      className={`clickable ${open ? 'is-open' : ''}`}
      data-row-index={index}
      aria-selected={selected || open}
      onClick={onOpen}
    >
      {/* The list runs in detection order, so the time shown is when it was detected (the record times are in the flyout). */}
      <td className="nowrap" title={`First record ${observation.first_time}`}>
        <Time iso={observation.created_at} />
      </td>
      <td>
        <SeverityBadge value={observation.level} />
      </td>
      <td className="fill observation-rule" title={observation.rule.title}>
        <button
          type="button"
          className="link-button"
          onClick={(event) => {
            event.stopPropagation();
            onOpen();
          }}
        >
          {observation.rule.title}
        </button>
      </td>
      <td className="nowrap">{observation.host ?? <span className="faint">—</span>}</td>
      {!compact && (
        <td className="nowrap">
          <TechniqueIds techniques={observation.techniques} max={2} />
        </td>
      )}
      {showCases && (
        <td className="nowrap">
          {kase ? (
            <Link to={`/cases/${kase.id}`} title={kase.title} onClick={(event) => event.stopPropagation()}>
              #{kase.number}
            </Link>
          ) : (
            <span className="faint">—</span>
          )}
        </td>
      )}
      {!compact && <td className="nowrap faint">{observation.source === 'external' ? 'External' : 'Detection'}</td>}
    </tr>
  );
}

export default function ObservationsPage() {
  const { can } = useSession();
  const [filters, update] = useUrlFilters(filterNames);
  // A preset range measures back from the moment it was picked (or Refresh was pressed).
  const [now, renewNow] = useRangeNow(filters.range);
  const { id: openId, ...listFilters } = filters;
  const resetKey = JSON.stringify(listFilters);
  const pager = useCursorPager(resetKey);
  const query = useMemo(
    () => ({ ...queryOf(filters, now), limit: PAGE_SIZE, cursor: pager.cursor }),
    [filters, now, pager.cursor],
  );
  const list = useObservationList(query);
  const rows = list.data?.observations ?? [];
  const showCases = can('cases:read');
  const cases = useObservationCases(
    rows.map((row) => row.id),
    showCases,
  );

  // A preset range counts back from a new moment (a new query); otherwise the same query is asked again.
  const refresh = () => (filters.range && !filters.since ? renewNow() : void list.refetch());
  const open = (id: string) => update({ id });
  const { selected, setSelected } = useRowNavigation(rows.length, (index) => {
    const row = rows[index];
    if (row) open(row.id);
  });
  // With the flyout open, j/k take it along to the row they select: a new selection moves it, while
  // the flyout and the rows are only read (an Effect Event).
  const follow = useEffectEvent((index: number) => {
    const row = rows[index];
    if (openId && row && row.id !== openId) update({ id: row.id });
  });
  useEffect(() => follow(selected), [selected]);

  return (
    <>
      <PageHeader
        title="Observations"
        subtitle="What the detection rules (and approved external writers) found, newest first. Each is grouped into a case."
        actions={<RefreshButton busy={list.isFetching} onRefresh={refresh} />}
      />
      <ObservationFilterBar filters={filters} update={update} />
      <div className={`observations-layout ${openId ? 'with-detail' : ''}`}>
        <section className="panel flush observations-list" aria-label="Observation list">
          <QueryView
            query={list}
            loading="Loading observations"
            error="Could not load observations"
            empty={(data) =>
              data.observations.length === 0 &&
              (resetKey === '{}'
                ? 'No observations yet. They appear as soon as a rule matches a record the collector received.'
                : 'No observation matches these filters.')
            }
          >
            {(data) => (
              <div className="table-wrap">
                <table
                  className={`table observation-table ${list.isFetching ? 'is-refreshing' : ''}`}
                  aria-label="Observations"
                >
                  <thead>
                    <tr>
                      <th>Detected</th>
                      <th>Level</th>
                      <th>Rule</th>
                      <th>Host</th>
                      {!openId && <th>Techniques</th>}
                      {showCases && <th>Case</th>}
                      {!openId && <th>Source</th>}
                    </tr>
                  </thead>
                  <tbody>
                    {data.observations.map((observation, index) => (
                      <Row
                        key={observation.id}
                        observation={observation}
                        index={index}
                        selected={selected === index}
                        open={openId === observation.id}
                        kase={cases.data?.cases[observation.id]}
                        showCases={showCases}
                        compact={Boolean(openId)}
                        onOpen={() => {
                          setSelected(index);
                          open(observation.id);
                        }}
                      />
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </QueryView>
          <Pager pager={pager} nextCursor={list.data?.next_cursor} shown={rows.length} pageSize={PAGE_SIZE} />
          <KeyHints keys={[...rowKeys, ['Esc', 'closes'], ['/', 'host filter']]} />
        </section>
        {openId && (
          <ObservationDrawer
            id={openId}
            onClose={() => update({ id: '' })}
            onFilter={(changes) => update({ ...changes, id: '' })}
          />
        )}
      </div>
    </>
  );
}
