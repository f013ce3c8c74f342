// How times, numbers and sizes read in the UI: exact time on hover, relative time at a glance.

const dateTime = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});
const shortDateTime = new Intl.DateTimeFormat(undefined, {
  month: 'short',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
});
const numberFormat = new Intl.NumberFormat();
const relativeFormat = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

/** Local date and time with seconds, e.g. "24 Nov 2026, 10:02:11". */
export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  return dateTime.format(new Date(iso));
}

/** Compact local date and time, e.g. "24 Nov, 10:02". */
export function formatShortDateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  return shortDateTime.format(new Date(iso));
}

const units: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['week', 7 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1_000],
];

/** "3 minutes ago", "in 2 days"; "now" within a few seconds. */
export function formatRelative(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '—';
  const difference = new Date(iso).getTime() - now;
  if (Math.abs(difference) < 5_000) return 'now';
  for (const [unit, size] of units) {
    if (Math.abs(difference) >= size || unit === 'second')
      return relativeFormat.format(Math.round(difference / size), unit);
  }
  return '—';
}

export function formatNumber(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : numberFormat.format(value);
}

export function formatBytes(value: number): string {
  const steps = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let size = value;
  let step = 0;
  while (size >= 1024 && step < steps.length - 1) {
    size /= 1024;
    step += 1;
  }
  return `${step === 0 ? size : size.toFixed(1)} ${steps[step]}`;
}

/** "in_progress" → "In progress". */
export function humanize(value: string): string {
  const text = value.replace(/_/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A datetime-local input's value (local time) as ISO 8601 UTC, or undefined when empty. */
export function localInputToIso(value: string): string | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** ISO 8601 as a datetime-local input's value (local time, minutes). */
export function isoToLocalInput(iso: string | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
