// The result rows: receive time plus the chosen columns, each row expandable (click, Enter or
// space) into the record's fields and its pretty-printed JSON.
import { Fragment } from 'react';
import { CopyButton } from '../../components/CopyButton';
import { Button } from '../../components/ui';
import { formatDateTime } from '../../lib/format';
import { cellText, columnLabel, columnValue, flatten } from './record-fields';
import { formatFilterValue } from './search-state';
import type { FieldValue, StoredRecord } from './types';

const stamp = new Intl.DateTimeFormat(undefined, {
  month: 'short',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  fractionalSecondDigits: 3,
  hour12: false,
});

export interface RecordActions {
  onFilter: (path: string, value: FieldValue) => void;
  onToggleColumn: (path: string) => void;
}

export function RecordTable({
  rows,
  columns,
  expanded,
  selected,
  fresh,
  onToggle,
  onSelect,
  actions,
}: {
  rows: StoredRecord[];
  columns: string[];
  expanded: Set<string>;
  selected: number;
  fresh: ReadonlySet<string>;
  onToggle: (id: string) => void;
  onSelect: (index: number) => void;
  actions: RecordActions;
}) {
  const shown = columns.length > 0 ? columns : ['@record'];
  return (
    <div className="table-wrap">
      <table className="table telemetry-table">
        <thead>
          <tr>
            <th className="expand-col">
              <span className="visually-hidden">Expand</span>
            </th>
            <th className="nowrap">received_at</th>
            {shown.map((column) => (
              <th key={column}>{column === '@record' ? 'record' : columnLabel(column)}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, index) => {
            const open = expanded.has(row.id);
            return (
              <Fragment key={row.id}>
                <tr
                  className={`clickable ${fresh.has(row.id) ? 'is-fresh' : ''}`}
                  data-row-index={index}
                  data-record-id={row.id}
                  aria-selected={selected === index}
                  onClick={(event) => {
                    // Selecting text in a row is reading, not a request to fold it.
                    if (window.getSelection()?.toString()) return;
                    if ((event.target as HTMLElement).closest('button')) return;
                    onSelect(index);
                    onToggle(row.id);
                  }}
                >
                  <td className="expand-col">
                    <button
                      type="button"
                      className="expander"
                      aria-expanded={open}
                      aria-label={`${open ? 'Collapse' : 'Expand'} record ${row.id}`}
                      onClick={() => {
                        onSelect(index);
                        onToggle(row.id);
                      }}
                    >
                      {open ? '▾' : '▸'}
                    </button>
                  </td>
                  <td
                    className="nowrap mono time-cell"
                    title={`${formatDateTime(row.received_at)} (${row.received_at}); event time ${row.event_time}`}
                  >
                    {stamp.format(new Date(row.received_at))}
                  </td>
                  {shown.map((column) => {
                    const value = column === '@record' ? undefined : columnValue(row.record, column);
                    const text =
                      column === '@record' || (column === 'message' && value === undefined)
                        ? JSON.stringify(row.record)
                        : cellText(value);
                    return (
                      <td
                        key={column}
                        className={`truncate ${column === 'message' || column === '@record' ? 'message-cell' : ''}`}
                        title={text.length > 80 ? text.slice(0, 2000) : undefined}
                      >
                        {value === undefined && column !== 'message' && column !== '@record' ? (
                          <span className="faint">—</span>
                        ) : (
                          text
                        )}
                      </td>
                    );
                  })}
                </tr>
                {open && (
                  <tr className="record-detail-row">
                    <td colSpan={shown.length + 2}>
                      <RecordDetail row={row} columns={columns} actions={actions} />
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function RecordDetail({ row, columns, actions }: { row: StoredRecord; columns: string[]; actions: RecordActions }) {
  const json = JSON.stringify(row.record, null, 2);
  const fields = flatten(row.record);
  return (
    <div className="record-detail" aria-label={`Record ${row.id}`} role="region">
      <div className="toolbar record-detail-toolbar">
        <span className="muted">
          Record <span className="mono">{row.id}</span> · received {formatDateTime(row.received_at)} · event time{' '}
          {formatDateTime(row.event_time)}
        </span>
        <CopyButton value={json} label="Copy JSON" />
      </div>
      <div className="record-detail-grid">
        <div className="table-wrap">
          <table className="table record-fields" aria-label="Fields">
            <tbody>
              {fields.map((field) => {
                const isColumn = columns.includes(field.path);
                return (
                  <tr key={field.path}>
                    <th scope="row" className="mono">
                      {field.path}
                    </th>
                    <td className="mono field-value">{cellText(field.value)}</td>
                    <td className="nowrap field-actions">
                      {field.filterable && (
                        <Button
                          small
                          variant="ghost"
                          title="Filter on this value"
                          aria-label={`Filter on ${field.path} = ${formatFilterValue(field.value as FieldValue)}`}
                          onClick={() => actions.onFilter(field.path, field.value as FieldValue)}
                        >
                          Filter
                        </Button>
                      )}
                      <Button
                        small
                        variant="ghost"
                        aria-pressed={isColumn}
                        title={isColumn ? 'Remove this column' : 'Show as a column'}
                        aria-label={`${isColumn ? 'Remove' : 'Show'} ${field.path} ${isColumn ? 'column' : 'as a column'}`}
                        onClick={() => actions.onToggleColumn(field.path)}
                      >
                        Column
                      </Button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
        <pre className="record record-json" aria-label="Record JSON" tabIndex={0}>
          {json}
        </pre>
      </div>
      {row.meta && (
        <p className="muted record-meta">
          Transport: <span className="mono">{JSON.stringify(row.meta)}</span>
        </p>
      )}
    </div>
  );
}
