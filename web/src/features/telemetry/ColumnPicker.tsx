// Which fields show as columns: the chosen ones (kept in the URL), fields seen in the results
// to pick from, any path typed in, and the default set back.
import { useState, type SubmitEvent } from 'react';
import { Button } from '../../components/ui';
import { columnLabel } from './record-fields';
import { DEFAULT_COLUMNS } from './search-state';

export function ColumnPicker({
  columns,
  suggestions,
  onChange,
}: {
  columns: string[];
  suggestions: string[];
  onChange: (columns: string[]) => void;
}) {
  const [custom, setCustom] = useState('');
  const offered = [
    ...columns,
    ...DEFAULT_COLUMNS.filter((column) => !columns.includes(column)),
    ...suggestions.filter((field) => !columns.includes(field) && !DEFAULT_COLUMNS.includes(field)),
  ];
  const toggle = (column: string) =>
    onChange(columns.includes(column) ? columns.filter((c) => c !== column) : [...columns, column]);
  const add = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const path = custom.trim();
    if (path && !columns.includes(path)) onChange([...columns, path]);
    setCustom('');
  };
  return (
    <details className="column-picker">
      <summary className="btn btn-secondary btn-small">Columns ({columns.length})</summary>
      <div className="column-picker-body" role="group" aria-label="Columns">
        <ul>
          {offered.map((column) => (
            <li key={column}>
              <label>
                <input type="checkbox" checked={columns.includes(column)} onChange={() => toggle(column)} />
                <span className="mono">{columnLabel(column)}</span>
              </label>
            </li>
          ))}
        </ul>
        <form onSubmit={add} className="column-picker-add">
          <input
            type="text"
            aria-label="Column field"
            placeholder="field path, e.g. http.status"
            value={custom}
            onChange={(event) => setCustom(event.target.value)}
          />
          <Button small type="submit">
            Add
          </Button>
        </form>
        <Button small variant="ghost" onClick={() => onChange(DEFAULT_COLUMNS)}>
          Reset to default
        </Button>
      </div>
    </details>
  );
}
