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
  // What this field itself last applied: when it comes back as `value`, the person may have typed
  // on meanwhile (a slow machine, a pause mid-word), and that newer text stays.
  const [sent, setSent] = useState<string | null>(null);
  let text = typed;
  if (applied !== value) {
    // Adjusted while rendering. A value that only trims what is typed ("web " → "web") must not
    // eat the space being typed, nor may our own earlier value eat what was typed since.
    setApplied(value);
    if (typed.trim() !== value && value !== sent) {
      text = value;
      setText(value);
    }
  }
  const apply = useCallback(
    (settled: string) => {
      setSent(settled);
      onSettle(settled);
    },
    [onSettle],
  );
  // The newest callback, so a timer started earlier applies to the current filters.
  const settle = useEffectEvent((settled: string) => apply(settled));
  useEffect(() => {
    if (text.trim() === value) return undefined;
    const timer = window.setTimeout(() => settle(text.trim()), ms);
    return () => window.clearTimeout(timer);
  }, [text, value, ms]);
  const flush = useCallback(() => apply(text.trim()), [apply, text]);
  return { text, setText, flush };
}
