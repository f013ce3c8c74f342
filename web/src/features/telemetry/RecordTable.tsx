// The result rows: receive time plus the chosen columns, in a table as wide as the page (cells
// cut off with an ellipsis); a row opens (click, Enter or space) into the record drawer.
import { formatDateTime } from '../../lib/format';
import { cellText, columnLabel, columnValue } from './record-fields';
import type { StoredRecord } from './types';
import { stringifyJson } from '../../lib/exact-json';

const stamp = new Intl.DateTimeFormat(undefined, {
  month: 'short',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  fractionalSecondDigits: 3,
  hour12: false,
});

export function RecordTable({
  rows,
  columns,
  expanded,
  selected,
  fresh,
  onToggle,
  onSelect,
}: {
  rows: StoredRecord[];
  columns: string[];
  expanded: Set<string>;
  selected: number;
  fresh: ReadonlySet<string>;
  onToggle: (id: string) => void;
  onSelect: (index: number) => void;
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
            <th className="nowrap time-col">received_at</th>
            {shown.map((column) => (
              <th key={column} className={column === 'message' || column === '@record' ? 'message-col' : undefined}>
                {column === '@record' ? 'record' : columnLabel(column)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, index) => {
            const open = expanded.has(row.id);
            return (
              <tr
                key={row.id}
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
                      ? stringifyJson(row.record)
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
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
