// The record drawer: the open record's fields (each can become a filter or a column) and its
// pretty-printed JSON, beside the results rather than inside the table, so a wide record never
// widens the table. Escape or the close button closes it.
import { useEffect } from 'react';
import { CopyButton } from '../../components/CopyButton';
import { Button } from '../../components/ui';
import { formatDateTime } from '../../lib/format';
import { cellText, flatten } from './record-fields';
import { formatFilterValue } from './search-state';
import type { FieldValue, StoredRecord } from './types';
import { stringifyJson } from '../../lib/exact-json';

export interface RecordActions {
  onFilter: (path: string, value: FieldValue) => void;
  onToggleColumn: (path: string) => void;
}

export function RecordDrawer({
  row,
  columns,
  actions,
  onClose,
}: {
  row: StoredRecord;
  columns: string[];
  actions: RecordActions;
  onClose: () => void;
}) {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape' && !(event.target instanceof HTMLInputElement)) onClose();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);
  return (
    <aside className="record-drawer" aria-label="Record details">
      <button type="button" className="dialog-close record-drawer-close" aria-label="Close record" onClick={onClose}>
        ×
      </button>
      <RecordDetail row={row} columns={columns} actions={actions} />
    </aside>
  );
}

function RecordDetail({ row, columns, actions }: { row: StoredRecord; columns: string[]; actions: RecordActions }) {
  const json = stringifyJson(row.record, 2);
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
          Transport: <span className="mono">{stringifyJson(row.meta)}</span>
        </p>
      )}
    </div>
  );
}
