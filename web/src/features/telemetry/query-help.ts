// Help for writing telemetry queries: the cheat sheet's examples, and finding the field name
// being typed at the caret so the query box can suggest and complete it.

export const queryExamples: [string, string][] = [
  ['timed out', 'records holding both words, anywhere (full text, any case)'],
  ['"payment declined"', 'the words in this order'],
  ['auth*', 'a word starting with auth'],
  ['kubernetes.namespace:prod', 'a field (dotted path) equal to a value'],
  ['user.name:adm*', 'wildcards in a value: * any run, ? one character'],
  ['http.status:>=500', 'comparisons: >, >=, <, <='],
  ['http.bytes:[1000 TO 5000]', 'a range, ends included; {…} excludes them, * leaves one open'],
  ['_exists_:user.name', 'the field is present (and not null)'],
  ['level:error AND NOT source:cron', 'AND, OR, NOT (upper case)'],
  ['(status:500 OR status:503) AND checkout', 'parentheses group'],
];

/** The field-name-like word ending at the caret, where suggestions apply. */
export interface FieldPrefix {
  text: string;
  start: number;
  end: number;
}

const FIELD_CHARS = /[A-Za-z0-9_@$.-]/;

export function fieldPrefixAt(value: string, caret: number): FieldPrefix | undefined {
  let start = caret;
  while (start > 0 && FIELD_CHARS.test(value[start - 1] ?? '')) start--;
  let end = caret;
  while (end < value.length && FIELD_CHARS.test(value[end] ?? '')) end++;
  const text = value.slice(start, caret);
  // Not inside a value (after `:`) or a phrase, and not an operator.
  const before = value.slice(0, start);
  if (text === '' || value[end] === ':' || before.endsWith(':')) return undefined;
  if ((before.match(/"/g)?.length ?? 0) % 2 === 1) return undefined;
  if (/^(AND|OR|NOT|TO)$/.test(text)) return undefined;
  return { text, start, end };
}

/** The query with the word at `prefix` replaced by `field:`, and where the caret goes. */
export function insertField(value: string, prefix: FieldPrefix, field: string): { value: string; caret: number } {
  const inserted = `${field}:`;
  return {
    value: value.slice(0, prefix.start) + inserted + value.slice(prefix.end),
    caret: prefix.start + inserted.length,
  };
}
