// The records an observation rests on: the fields the rule looked at, then the raw record as
// stored with those fields marked, so an analyst sees at once what matched and its context.
// The observation flyout and the case timeline both show evidence this way.
import type { ReactNode } from 'react';
import { CopyButton } from '../../components/CopyButton';
import { formatDateTime } from '../../lib/format';
import type { Evidence } from './types';
import './evidence.css';
import { isExactNumber, stringifyJson } from '../../lib/exact-json';

function text(value: unknown): string {
  return typeof value === 'string' ? value : stringifyJson(value);
}

/** What marks a part of the raw record: a key named like a matched field, or a value holding a matched value. */
interface Matcher {
  names: Set<string>;
  values: string[];
}

function matcherFor(fields: Record<string, unknown>): Matcher {
  const names = new Set<string>();
  const values: string[] = [];
  for (const [name, value] of Object.entries(fields)) {
    names.add(name.toLowerCase());
    // A dotted field (process.command_line) also names its last key.
    names.add(name.slice(name.lastIndexOf('.') + 1).toLowerCase());
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item === null || typeof item === 'object') continue;
      const literal = String(item);
      // Short values (a port, "1") would mark half the record.
      if (literal.length >= 3) values.push(literal.toLowerCase());
    }
  }
  return { names, values };
}

function matches(matcher: Matcher, key: string | null, value: unknown): boolean {
  if (key !== null && matcher.names.has(key.toLowerCase())) return true;
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean' && !isExactNumber(value))
    return false;
  const literal = String(value).toLowerCase();
  return matcher.values.some((wanted) => literal.includes(wanted));
}

/**
 * Pretty-printed JSON (2-space indent, as JSON.stringify) with the matching lines marked; a key
 * named like a matched field marks its whole value. `path` keys the elements (unique per node).
 */
function renderJson(
  value: unknown,
  matcher: Matcher,
  path: string,
  depth: number,
  key: string | null,
  last: boolean,
): ReactNode[] {
  const indent = '  '.repeat(depth);
  const comma = last ? '' : ',';
  const prefix = (
    <>
      {indent}
      {key !== null && (
        <>
          <span className="json-key">{JSON.stringify(key)}</span>:{' '}
        </>
      )}
    </>
  );
  if (value !== null && typeof value === 'object' && !isExactNumber(value)) {
    const entries: [string | null, unknown][] = Array.isArray(value)
      ? value.map((item) => [null, item])
      : Object.entries(value);
    const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
    if (entries.length === 0) {
      return [
        <span key={path}>
          {prefix}
          {open}
          {close}
          {comma}
          {'\n'}
        </span>,
      ];
    }
    const children = entries.flatMap(([childKey, child], index) =>
      renderJson(
        child,
        matcher,
        `${path}.${JSON.stringify(childKey ?? index)}`,
        depth + 1,
        childKey,
        index === entries.length - 1,
      ),
    );
    const lines = [
      <span key={`${path}{`}>
        {prefix}
        {open}
        {'\n'}
      </span>,
      ...children,
      <span key={`${path}}`}>
        {indent}
        {close}
        {comma}
        {'\n'}
      </span>,
    ];
    return key !== null && matcher.names.has(key.toLowerCase()) ? [<mark key={path}>{lines}</mark>] : lines;
  }
  const pair = (
    <>
      {key !== null && (
        <>
          <span className="json-key">{JSON.stringify(key)}</span>:{' '}
        </>
      )}
      <span className="json-value">{stringifyJson(value)}</span>
    </>
  );
  return [
    <span key={path}>
      {indent}
      {matches(matcher, key, value) ? <mark>{pair}</mark> : pair}
      {comma}
      {'\n'}
    </span>,
  ];
}

/**
 * One evidence record. `collapsed` (the case timeline, many records in a row): the raw record
 * opens on request.
 */
export function EvidenceRecord({
  evidence,
  index,
  collapsed = false,
}: {
  evidence: Evidence;
  index: number;
  collapsed?: boolean;
}) {
  const fields = Object.entries(evidence.fields);
  const matcher = matcherFor(evidence.fields);
  const raw = evidence.record === null ? null : stringifyJson(evidence.record, 2);
  const json = evidence.record !== null && (
    <pre className="record evidence-json" aria-label="Raw record">
      {renderJson(evidence.record, matcher, '', 0, null, true)}
    </pre>
  );
  return (
    <section className="evidence-record" aria-label={`Evidence record ${evidence.record_id ?? index + 1}`}>
      <header className="evidence-header">
        <span>
          Record <code>{evidence.record_id ?? '—'}</code>
        </span>
        {evidence.event_time && <span className="faint">event {formatDateTime(evidence.event_time)}</span>}
        {evidence.received_at && <span className="faint">received {formatDateTime(evidence.received_at)}</span>}
        {raw && <CopyButton value={raw} label="Copy JSON" />}
      </header>
      {fields.length > 0 && (
        <table className="table evidence-fields" aria-label="Fields the rule looked at">
          <tbody>
            {fields.map(([name, value]) => (
              <tr key={name}>
                <th scope="row" className="mono">
                  {name}
                </th>
                <td className="mono">{text(value)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {evidence.record === null ? (
        <p className="faint">
          {evidence.record_id ? 'The record is no longer stored.' : 'Written through the API without a record.'}
        </p>
      ) : collapsed ? (
        <details className="raw-record">
          <summary>Raw record</summary>
          {json}
        </details>
      ) : (
        json
      )}
    </section>
  );
}
