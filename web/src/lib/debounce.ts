// Text a person is typing, applied once the typing pauses: a filter's URL and query change once
// per word, not once per key.
import { useCallback, useEffect, useRef, useState } from 'react';

/**
 * The text shown in a field whose applied value is `value`: `onSettle` gets the trimmed text
 * `ms` after the last change (or at once through `flush`, e.g. on Enter). When `value` changes
 * from elsewhere (a link, "Clear filters") the field shows it.
 */
export function useDebouncedText(
  value: string,
  onSettle: (text: string) => void,
  ms = 300,
): { text: string; setText: (text: string) => void; flush: () => void } {
  const [text, setText] = useState(value);
  // The newest callback, so a timer started earlier applies to the current filters.
  const settle = useRef(onSettle);
  settle.current = onSettle;
  // A value that only trims what is typed ("web " → "web") must not eat the space being typed.
  useEffect(() => setText((current) => (current.trim() === value ? current : value)), [value]);
  useEffect(() => {
    if (text.trim() === value) return undefined;
    const timer = window.setTimeout(() => settle.current(text.trim()), ms);
    return () => window.clearTimeout(timer);
  }, [text, value, ms]);
  const flush = useCallback(() => settle.current(text.trim()), [text]);
  return { text, setText, flush };
}
