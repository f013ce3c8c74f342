// Telemetry: search the raw records the collector stored (words, time range, field filters),
// newest first, with chosen fields as columns, a histogram of matches over the range, rows that
// open into the record's JSON, NDJSON export, and a live tail that streams new matches in.
// Everything that defines the search lives in the URL, so a search is a link.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useSession } from '../../app/session';
import { Pager } from '../../components/paging';
import { useRowNavigation } from '../../components/row-navigation';
import { QueryView } from '../../components/QueryView';
import { Button, KeyHints, Notice, PageHeader, RefreshButton } from '../../components/ui';
import { ApiError, errorMessage } from '../../api/client';
import { useHotkeys } from '../../lib/hotkeys';
import { formatDateTime, formatNumber } from '../../lib/format';
import { useUrlFilters } from '../../lib/url-state';
import {
  downloadExport,
  EXPORT_LIMIT,
  PAGE_SIZE,
  useTelemetryFields,
  useTelemetryHistogram,
  useTelemetrySearch,
} from './api';
import type { QueryProblem } from './QueryBox';
import { RecordDrawer } from './RecordDrawer';
import { SavedSearches } from './SavedSearches';
import { useUrlPager } from './use-url-pager';
import { ColumnPicker } from './ColumnPicker';
import { HistogramChart } from './HistogramChart';
import { LiveStatus, LiveToggle, type PauseReason } from './LiveControls';
import { commonFields } from './record-fields';
import { RecordTable } from './RecordTable';
import { FilterBar, SearchForm } from './SearchBar';
import {
  criteriaOf,
  describeRange,
  encodeColumns,
  encodeFilters,
  isRelative,
  parseColumns,
  parseFilters,
  urlNames,
  type TelemetryUrl,
} from './search-state';
import type { FieldValue, StoredRecord } from './types';
import { useFreshMarks } from './use-fresh-marks';
import { useLiveTail } from './use-live-tail';
import './telemetry.css';

/** Rows kept on the page while live: the newest, so a busy tail never grows without bound. */
const MAX_LIVE_ROWS = 1_000;
const FRESH_MS = 2_500;

/** Two newest-first lists as one, without repeats (a record can come from both search and tail), capped. */
function merge(first: StoredRecord[], then: StoredRecord[]): StoredRecord[] {
  const seen = new Set<string>();
  const merged: StoredRecord[] = [];
  for (const record of first.concat(then)) {
    if (seen.has(record.id)) continue;
    seen.add(record.id);
    merged.push(record);
    if (merged.length >= MAX_LIVE_ROWS) break;
  }
  return merged;
}

export default function TelemetryPage() {
  const { me, tenant } = useSession();
  const [url, setUrl] = useUrlFilters(urlNames);
  // Relative ranges count back from the moment of the search; a new search takes a new moment.
  const [searchedAt, setSearchedAt] = useState(() => Date.now());
  const refresh = useCallback(() => setSearchedAt(Date.now()), []);
  // A new search starts at page one.
  const update = useCallback(
    (changes: TelemetryUrl) => {
      setUrl({ c: '', ...changes });
      refresh();
    },
    [setUrl, refresh],
  );
  const criteria = useMemo(() => criteriaOf(url, searchedAt), [url, searchedAt]);
  const order = url.order === 'asc' ? 'asc' : 'desc';
  const columns = parseColumns(url.cols);
  const filters = parseFilters(url.f);
  const resetKey = JSON.stringify([criteria, order]);
  const pager = useUrlPager(
    url.c,
    useCallback((c: string) => setUrl({ c }), [setUrl]),
  );

  const [live, setLive] = useState(false);
  const relative = isRelative(url);
  const search = useTelemetrySearch(criteria, order, live ? undefined : pager.cursor);
  const histogram = useTelemetryHistogram(criteria, live);

  const [expanded, setExpanded] = useState<Set<string>>(new Set());
  const [liveRows, setLiveRows] = useState<StoredRecord[]>([]);
  const [waiting, setWaiting] = useState<StoredRecord[]>([]);
  const [fresh, markFresh] = useFreshMarks(FRESH_MS);
  const [manualPause, setManualPause] = useState(false);
  const [scrolledAway, setScrolledAway] = useState(false);
  const results = useRef<HTMLElement>(null);

  const page = search.data && !search.isPlaceholderData ? search.data : undefined;
  const startCursor = live ? page?.tail_cursor : undefined;
  // A new search, or live from a new start: the rows of the last one go. Adjusted while rendering
  // (React's pattern for "reset when a prop changes"), so no render mixes the two.
  const liveKey = JSON.stringify([resetKey, startCursor ?? null]);
  const [rowsOf, setRowsOf] = useState(liveKey);
  const restarted = rowsOf !== liveKey;
  if (restarted) {
    setRowsOf(liveKey);
    setLiveRows([]);
    setWaiting([]);
    setExpanded(new Set());
  }

  const rows = useMemo(() => {
    const shown = search.data?.records ?? [];
    return live && liveRows.length > 0 ? merge(liveRows, shown) : shown;
  }, [live, liveRows, search.data]);

  // One record open at a time, in the drawer.
  const toggle = useCallback(
    (id: string) => {
      setExpanded((current) => (current.has(id) ? new Set() : new Set([id])));
    },
    [setExpanded],
  );
  const { selected, setSelected } = useRowNavigation(rows.length, (index) => {
    const row = rows[index];
    if (row) toggle(row.id);
  });
  useHotkeys({
    ' ': () => {
      const row = rows[selected];
      if (row) toggle(row.id);
    },
  });

  const pause: PauseReason = !live
    ? null
    : manualPause
      ? 'manual'
      : expanded.size > 0
        ? 'expanded'
        : scrolledAway
          ? 'scrolled'
          : null;

  // Pause while the newest rows are scrolled out of view: inserting above would move what is read.
  useEffect(() => {
    if (!live) return undefined;
    const onScroll = () => setScrolledAway((results.current?.getBoundingClientRect().top ?? 0) < -8);
    onScroll();
    window.addEventListener('scroll', onScroll, { passive: true });
    return () => window.removeEventListener('scroll', onScroll);
  }, [live]);

  const show = (records: StoredRecord[]) => {
    // The tail answers oldest first; the list shows newest first.
    setLiveRows((current) => merge([...records].reverse(), current));
    // Rows arriving above keep the selection on the same record.
    setSelected((index) => (index >= 0 ? index + records.length : index));
    markFresh(records.map((record) => record.id));
  };
  const tail = useLiveTail({
    enabled: live && Boolean(startCursor),
    criteria,
    startCursor,
    onRecords: (records) => {
      if (pause) setWaiting((current) => [...current, ...records].slice(-MAX_LIVE_ROWS));
      else show(records);
    },
  });
  // What arrived during a pause goes in once the pause ends, adjusted while rendering.
  if (!restarted && !pause && waiting.length > 0) {
    show(waiting);
    setWaiting([]);
  }

  const setLiveMode = (on: boolean) => {
    setLive(on);
    setManualPause(false);
    if (on) {
      // Newest first, page one, and a fresh start position: the tail continues from now.
      if (order === 'asc') setUrl({ order: '' });
      pager.first();
      refresh();
    }
  };
  const resume = () => {
    setManualPause(false);
    setExpanded(new Set());
    if (scrolledAway) results.current?.scrollIntoView({ block: 'start' });
  };

  const [exporting, setExporting] = useState(false);
  const [exported, setExported] = useState<{ lines: number } | { error: unknown } | null>(null);
  const exportNow = async () => {
    setExporting(true);
    setExported(null);
    try {
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      const lines = await downloadExport(
        criteria,
        order,
        me.csrf_token ?? '',
        `telemetry-${tenant?.code_name ?? 'tenant'}-${stamp}.ndjson`,
      );
      setExported({ lines });
    } catch (error) {
      setExported({ error });
    } finally {
      setExporting(false);
    }
  };

  const actions = {
    onFilter: (path: string, value: FieldValue) => update({ f: encodeFilters({ ...filters, [path]: value }) }),
    onToggleColumn: (path: string) =>
      setUrl({ cols: encodeColumns(columns.includes(path) ? columns.filter((c) => c !== path) : [...columns, path]) }),
  };
  const suggestions = useMemo(() => commonFields(rows), [rows]);
  const knownFields = useTelemetryFields();
  const fieldNames = useMemo(
    () => [...new Set([...(knownFields.data?.fields.map((field) => field.path) ?? []), ...suggestions])],
    [knownFields.data, suggestions],
  );
  const problem = queryProblem(search.error, criteria.query);
  const openRecord = rows.find((row) => expanded.has(row.id));
  const rangeWords = describeRange(url, formatDateTime);
  const total = histogram.data?.total;

  return (
    <>
      <PageHeader
        title="Telemetry"
        subtitle={
          total !== undefined
            ? `${formatNumber(total)} matching record${total === 1 ? '' : 's'} ${rangeWords}`
            : `Raw records the collector stored, ${rangeWords}`
        }
        actions={
          <>
            <LiveToggle live={live} available={relative} onChange={setLiveMode} />
            <Button
              onClick={() => void exportNow()}
              disabled={exporting}
              title={`Download the matching records as NDJSON (up to ${formatNumber(EXPORT_LIMIT)})`}
            >
              {exporting ? 'Exporting…' : 'Export NDJSON'}
            </Button>
          </>
        }
      />
      <SearchForm url={url} update={update} onSearch={refresh} problem={problem} fields={fieldNames} />
      <SavedSearches url={url} update={update} />
      <FilterBar url={url} update={update} fields={fieldNames} />
      {exported && 'lines' in exported && (
        <Notice tone={exported.lines >= EXPORT_LIMIT ? 'warning' : 'success'}>
          {exported.lines >= EXPORT_LIMIT
            ? `Saved the first ${formatNumber(exported.lines)} records; narrow the search, or use POST /v1/telemetry/export for everything.`
            : `Saved ${formatNumber(exported.lines)} record${exported.lines === 1 ? '' : 's'} as NDJSON.`}
        </Notice>
      )}
      {exported && 'error' in exported && <Notice tone="danger">Export failed: {errorMessage(exported.error)}</Notice>}
      {page?.partial && (
        <Notice tone="warning">
          The search index is still catching up: the text search covers records received before{' '}
          {formatDateTime(page.complete_up_to)}. Refresh in a moment for the rest.
        </Notice>
      )}
      <section className="panel telemetry-histogram-panel" aria-label="Matches over time">
        <HistogramChart histogram={histogram} onZoom={(since, until) => update({ range: 'custom', since, until })} />
      </section>
      <LiveStatus
        live={live}
        pause={pause}
        waiting={waiting.length}
        error={tail.error}
        onPause={() => setManualPause(true)}
        onResume={resume}
      />
      <section className="panel flush telemetry-results" aria-label="Records" ref={results}>
        <header className="panel-header">
          <div className="toolbar">
            <label className="order-select">
              <span className="visually-hidden">Order</span>
              <select
                aria-label="Order"
                value={order}
                disabled={live}
                onChange={(event) => update({ order: event.target.value === 'asc' ? 'asc' : '' })}
              >
                <option value="desc">Newest first</option>
                <option value="asc">Oldest first</option>
              </select>
            </label>
            <ColumnPicker
              columns={columns}
              suggestions={suggestions}
              onChange={(next) => setUrl({ cols: encodeColumns(next) })}
            />
            {!live && <RefreshButton variant="ghost" busy={search.isFetching} onRefresh={refresh} />}
          </div>
          <KeyHints
            keys={[
              ['j k', 'move'],
              ['Enter space', 'open'],
              ['/', 'search'],
            ]}
          />
        </header>
        <QueryView
          query={search}
          loading="Searching records"
          error="Could not search telemetry"
          empty={() =>
            rows.length === 0 && (
              <>
                No record matches {rangeWords}
                {live ? ' yet; new ones will appear here.' : '.'}
                {Object.keys(filters).length > 0 &&
                  ' Field filters compare with the JSON type: 500 (number) does not match "500" (text).'}
              </>
            )
          }
        >
          {() => (
            <div className={search.isFetching && !live ? 'is-refreshing' : ''}>
              <RecordTable
                rows={rows}
                columns={columns}
                expanded={expanded}
                selected={selected}
                fresh={fresh}
                onToggle={toggle}
                onSelect={setSelected}
              />
            </div>
          )}
        </QueryView>
        {live ? (
          <p className="pager pager-range">
            Showing the newest {formatNumber(rows.length)} (at most {formatNumber(MAX_LIVE_ROWS)} are kept while live)
          </p>
        ) : (
          <Pager
            pager={pager}
            nextCursor={search.data?.next_cursor}
            shown={search.data?.records.length ?? 0}
            pageSize={PAGE_SIZE}
          />
        )}
      </section>
      {openRecord && (
        <RecordDrawer row={openRecord} columns={columns} actions={actions} onClose={() => toggle(openRecord.id)} />
      )}
    </>
  );
}

/** The server's answer to a query it could not read, with where, for the query box to underline. */
function queryProblem(error: unknown, query: string | undefined): QueryProblem | undefined {
  if (!(error instanceof ApiError) || error.code !== 'invalid_query' || query === undefined) return undefined;
  const position = error.problem?.position;
  return typeof position === 'number' ? { query, position, detail: error.detail } : undefined;
}
