// The query box of the telemetry search: the query language with the character the server could
// not read underlined in place (a mirror of the text behind the transparent input), field-name
// suggestions for the word being typed, and a cheat sheet of the syntax with examples.
import { useRef, useState, type KeyboardEvent } from 'react';
import { fieldPrefixAt, insertField, queryExamples } from './query-help';

/** Where the server could not read the query: a 0-based character position and why. */
export interface QueryProblem {
  query: string;
  position: number;
  detail: string;
}

export function QueryBox({
  value,
  onChange,
  problem,
  fields,
}: {
  value: string;
  onChange: (value: string) => void;
  problem: QueryProblem | undefined;
  fields: readonly string[];
}) {
  const input = useRef<HTMLInputElement>(null);
  const mirror = useRef<HTMLDivElement>(null);
  const [caret, setCaret] = useState<number | null>(null);
  const [active, setActive] = useState(0);
  // The problem's position counts in the query as sent (trimmed); shown only while that is the text.
  const lead = value.length - value.trimStart().length;
  const mark = problem?.query === value.trim() ? lead + problem.position : undefined;

  const prefix = caret === null ? undefined : fieldPrefixAt(value, caret);
  const suggestions =
    prefix === undefined
      ? []
      : fields.filter((field) => field.startsWith(prefix.text) && field !== prefix.text).slice(0, 8);

  const choose = (field: string) => {
    if (!prefix) return;
    const next = insertField(value, prefix, field);
    onChange(next.value);
    setCaret(null);
    requestAnimationFrame(() => {
      input.current?.focus();
      input.current?.setSelectionRange(next.caret, next.caret);
    });
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    // Escape leaves the box so the list's keys (j/k) work again, as in the other lists.
    if (event.key === 'Escape') {
      if (suggestions.length > 0) setCaret(null);
      else event.currentTarget.blur();
      return;
    }
    if (suggestions.length === 0) return;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setActive((index) => (index + step + suggestions.length) % suggestions.length);
    } else if (event.key === 'Tab') {
      event.preventDefault();
      choose(suggestions[Math.min(active, suggestions.length - 1)] ?? '');
    }
  };

  return (
    <div className="query-box">
      <div className={`query-input ${mark !== undefined ? 'has-problem' : ''}`}>
        <div className="query-mirror" aria-hidden="true" ref={mirror}>
          {mark === undefined ? (
            value
          ) : (
            <>
              {value.slice(0, mark)}
              <span className="query-problem-mark" data-position={mark}>
                {value.slice(mark, mark + 1) || ' '}
              </span>
              {value.slice(mark + 1)}
            </>
          )}
        </div>
        <input
          ref={input}
          type="search"
          data-search
          aria-label="Query"
          role="combobox"
          aria-expanded={suggestions.length > 0}
          aria-controls="telemetry-field-suggestions"
          aria-autocomplete="list"
          aria-invalid={mark !== undefined}
          aria-describedby={mark !== undefined ? 'telemetry-query-problem' : undefined}
          value={value}
          spellCheck={false}
          autoComplete="off"
          onChange={(event) => {
            onChange(event.target.value);
            setCaret(event.target.selectionStart);
            setActive(0);
          }}
          onSelect={(event) => setCaret(event.currentTarget.selectionStart)}
          onBlur={() => setTimeout(() => setCaret(null), 150)}
          onScroll={(event) => {
            if (mirror.current) mirror.current.scrollLeft = event.currentTarget.scrollLeft;
          }}
          onKeyDown={onKeyDown}
          placeholder='e.g. http.status:>=500 AND NOT kubernetes.namespace:dev, or words "a phrase"'
          maxLength={1024}
          className="telemetry-query"
        />
        {suggestions.length > 0 && (
          <ul className="query-suggestions" id="telemetry-field-suggestions" role="listbox" aria-label="Fields">
            {suggestions.map((field, index) => (
              <li
                key={field}
                role="option"
                aria-selected={index === active}
                className="mono"
                onMouseDown={(event) => {
                  event.preventDefault();
                  choose(field);
                }}
              >
                {field}
              </li>
            ))}
          </ul>
        )}
      </div>
      {mark !== undefined && problem && (
        <p className="field-error query-problem" id="telemetry-query-problem" role="alert">
          {problem.detail}
        </p>
      )}
    </div>
  );
}

/** The syntax at a glance; clicking an example puts it in the query box. */
export function QueryCheatSheet({ onExample }: { onExample: (query: string) => void }) {
  return (
    <details className="query-help">
      <summary>Query syntax</summary>
      <table className="table query-help-table">
        <tbody>
          {queryExamples.map(([query, meaning]) => (
            <tr key={query}>
              <td>
                <button type="button" className="link-button mono" onClick={() => onExample(query)}>
                  {query}
                </button>
              </td>
              <td>{meaning}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted">
        Operators are upper case; adjacent terms must all match. Values compare as written: an unquoted number matches
        the number or the same text, a quoted value only the text. Escape a special character with a backslash.
      </p>
    </details>
  );
}
