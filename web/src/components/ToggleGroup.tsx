// A row of toggle buttons choosing any of a fixed list (levels, severities) for a filter; the
// choice travels as one comma-separated value in the list's own order, as the URL keeps it.
import { useId } from 'react';
import { humanize } from '../lib/format';

export function ToggleGroup({
  label,
  options,
  value,
  onChange,
}: {
  label: string;
  options: readonly string[];
  value: string | undefined;
  onChange: (value: string) => void;
}) {
  const labelId = useId();
  const chosen = new Set((value ?? '').split(',').filter(Boolean));
  const toggle = (option: string) => {
    const next = new Set(chosen);
    if (next.has(option)) next.delete(option);
    else next.add(option);
    onChange(options.filter((item) => next.has(item)).join(','));
  };
  return (
    <div className="field">
      <span className="field-label" id={labelId}>
        {label}
      </span>
      <div className="toggle-group" role="group" aria-labelledby={labelId}>
        {options.map((option) => (
          // The level-… class colours a pressed toggle like its badge.
          <button
            key={option}
            type="button"
            className={`toggle level-${option}`}
            aria-pressed={chosen.has(option)}
            onClick={() => toggle(option)}
          >
            {humanize(option)}
          </button>
        ))}
      </div>
    </div>
  );
}
