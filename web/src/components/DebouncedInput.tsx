// A filter's text field: applies its value once typing pauses; Enter applies at once, Escape
// leaves the field so the list's keys (j/k) work again.
import type { InputHTMLAttributes } from 'react';
import { useDebouncedText } from '../lib/debounce';

export function DebouncedInput({
  value,
  onSettle,
  ms,
  ...rest
}: Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange'> & {
  value: string;
  onSettle: (value: string) => void;
  ms?: number;
}) {
  const { text, setText, flush } = useDebouncedText(value, onSettle, ms);
  return (
    <input
      {...rest}
      value={text}
      onChange={(event) => setText(event.target.value)}
      onKeyDown={(event) => {
        if (event.key === 'Enter') flush();
        if (event.key === 'Escape') event.currentTarget.blur();
        rest.onKeyDown?.(event);
      }}
    />
  );
}
