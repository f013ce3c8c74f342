// Devices: the inventory the telemetry built, most recently seen first, with where each address
// is, who used the device last, how much it matters and its open cases. Filters in the URL,
// cursor pages, j/k/Enter opens a device.
import { useMemo } from 'react';
import { Link, useNavigate } from 'react-router';
import { SeverityBadge } from '../../components/badges';
import { DebouncedInput } from '../../components/DebouncedInput';
import { Pager, useCursorPager } from '../../components/paging';
import { QueryView } from '../../components/QueryView';
import { rowKeys, useRowNavigation } from '../../components/row-navigation';
import { Button, Field, KeyHints, PageHeader, RefreshButton, Time } from '../../components/ui';
import { rangeStart, timeRanges, useRangeNow } from '../../lib/time-range';
import { useUrlFilters } from '../../lib/url-state';
import { useDeviceList, type DeviceQuery } from './api';
import { AddressList } from './addresses';
import './devices.css';

const PAGE_SIZE = 50;
export const deviceFilterNames = ['name', 'ip', 'seen', 'open_case'] as const;

export default function DevicesPage() {
  const navigate = useNavigate();
  const [filters, update] = useUrlFilters(deviceFilterNames);
  const [now, renewNow] = useRangeNow(filters.seen);
  const resetKey = JSON.stringify(filters);
  const pager = useCursorPager(resetKey);
  const query = useMemo<DeviceQuery>(() => {
    const seenSince = rangeStart(filters.seen, now);
    return {
      ...(filters.name ? { name: filters.name } : {}),
      ...(filters.ip ? { ip: filters.ip } : {}),
      ...(seenSince ? { seen_since: seenSince } : {}),
      ...(filters.open_case === 'yes'
        ? { has_open_case: true }
        : filters.open_case === 'no'
          ? { has_open_case: false }
          : {}),
      limit: PAGE_SIZE,
      cursor: pager.cursor,
    };
  }, [filters, now, pager.cursor]);
  const list = useDeviceList(query);
  const rows = list.data?.devices ?? [];
  const open = (index: number) => {
    const row = rows[index];
    if (row) void navigate(`/devices/${row.id}`);
  };
  const { selected, setSelected } = useRowNavigation(rows.length, open);
  const filtered = Object.keys(filters).length > 0;
  // A range counts back from a new moment (a new query); without one, the same query is asked again.
  const refresh = () => (filters.seen ? renewNow() : void list.refetch());

  return (
    <>
      <PageHeader
        title="Devices"
        subtitle="Built from the telemetry: every host a record names. Addresses are located when first seen."
        actions={<RefreshButton busy={list.isFetching} onRefresh={refresh} />}
      />
      <div className="filters" role="search" aria-label="Filter devices">
        <Field label="Host name">
          <DebouncedInput
            type="search"
            data-search
            placeholder="Part of the name  ( / )"
            value={filters.name ?? ''}
            onSettle={(name) => update({ name })}
          />
        </Field>
        <Field label="IP address">
          <DebouncedInput
            type="search"
            className="ip-input"
            placeholder="Exact address"
            value={filters.ip ?? ''}
            onSettle={(ip) => update({ ip })}
          />
        </Field>
        <Field label="Seen">
          <select value={filters.seen ?? ''} onChange={(event) => update({ seen: event.target.value })}>
            <option value="">Any time</option>
            {timeRanges.map((range) => (
              <option key={range.value} value={range.value}>
                {range.label}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Open cases">
          <select value={filters.open_case ?? ''} onChange={(event) => update({ open_case: event.target.value })}>
            <option value="">Any</option>
            <option value="yes">With open cases</option>
            <option value="no">Without open cases</option>
          </select>
        </Field>
        {filtered && (
          <Button variant="ghost" onClick={() => update({ name: '', ip: '', seen: '', open_case: '' })}>
            Clear filters
          </Button>
        )}
      </div>
      <section className="panel flush" aria-label="Device list">
        <QueryView
          query={list}
          loading="Loading devices"
          error="Could not load devices"
          empty={(data) =>
            data.devices.length === 0 &&
            (filtered
              ? 'No device matches these filters.'
              : 'No devices yet. They appear when the collector receives records that name their host.')
          }
        >
          {(data) => (
            <div className="table-wrap">
              <table className={`table device-table ${list.isFetching ? 'is-refreshing' : ''}`} aria-label="Devices">
                <thead>
                  <tr>
                    <th>Host name</th>
                    <th>OS</th>
                    <th>Addresses</th>
                    <th>Last user</th>
                    <th>Criticality</th>
                    <th className="num">Open cases</th>
                    <th>First seen</th>
                    <th>Last seen</th>
                  </tr>
                </thead>
                <tbody>
                  {data.devices.map((device, index) => (
                    <tr
                      key={device.id}
                      className="clickable"
                      data-row-index={index}
                      aria-selected={selected === index}
                      onClick={() => {
                        setSelected(index);
                        open(index);
                      }}
                    >
                      <td className="nowrap">
                        <Link
                          to={`/devices/${device.id}`}
                          className="device-name"
                          onClick={(event) => event.stopPropagation()}
                        >
                          {device.host_name}
                        </Link>
                        {device.description && (
                          <span className="subline truncate device-description">{device.description}</span>
                        )}
                      </td>
                      <td className="nowrap">{device.os ?? <span className="faint">—</span>}</td>
                      <td>
                        <AddressList addresses={device.addresses} />
                      </td>
                      <td className="nowrap">{device.last_user ?? <span className="faint">—</span>}</td>
                      <td>
                        <SeverityBadge value={device.criticality} />
                      </td>
                      <td className="num">
                        {device.open_case_ids.length > 0 ? (
                          <strong>{device.open_case_ids.length}</strong>
                        ) : (
                          <span className="faint">0</span>
                        )}
                      </td>
                      <td className="nowrap">
                        <Time iso={device.first_seen} />
                      </td>
                      <td className="nowrap">
                        <Time iso={device.last_seen} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </QueryView>
        <Pager pager={pager} nextCursor={list.data?.next_cursor} shown={rows.length} pageSize={PAGE_SIZE} />
        <KeyHints keys={[...rowKeys, ['/', 'host name filter']]} />
      </section>
    </>
  );
}
