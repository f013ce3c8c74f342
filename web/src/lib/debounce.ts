// Text a person is typing, applied once the typing pauses: a filter's URL and query change once
// per word, not once per key.
import { useCallback, useEffect, useEffectEvent, useState } from 'react';

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
  const [typed, setText] = useState(value);
  const [applied, setApplied] = useState(value);
  let text = typed;
  if (applied !== value) {
    // Adjusted while rendering. A value that only trims what is typed ("web " → "web") must not
    // eat the space being typed.
    setApplied(value);
    if (typed.trim() !== value) {
      text = value;
      setText(value);
    }
  }
  // The newest callback, so a timer started earlier applies to the current filters.
  const settle = useEffectEvent((settled: string) => onSettle(settled));
  useEffect(() => {
    if (text.trim() === value) return undefined;
    const timer = window.setTimeout(() => settle(text.trim()), ms);
    return () => window.clearTimeout(timer);
  }, [text, value, ms]);
  const flush = useCallback(() => onSettle(text.trim()), [onSettle, text]);
  return { text, setText, flush };
}
