// The time modifiers (minute, hour, day, week, month, year): a date part of a field's timestamp,
// always in UTC, whatever the server's time zone.

/** A UTC date part of a timestamp (ISO 8601 text, or epoch seconds/milliseconds). */
export function timeComponent(value: string | number | boolean | null, part: string): number | null {
  let ms: number;
  if (typeof value === 'number') ms = epochMs(value);
  else if (typeof value === 'string')
    ms = /^\d+(\.\d+)?$/.test(value) ? epochMs(Number(value)) : Date.parse(asUtc(value));
  else return null;
  if (!Number.isFinite(ms)) return null;
  const date = new Date(ms);
  switch (part) {
    case 'minute':
      return date.getUTCMinutes();
    case 'hour':
      return date.getUTCHours();
    case 'day':
      return date.getUTCDate();
    case 'month':
      return date.getUTCMonth() + 1;
    case 'year':
      return date.getUTCFullYear();
    default:
      return isoWeek(date);
  }
}

/** A date-time without a zone is read as UTC, never in the server's time zone. */
function asUtc(text: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)$/.exec(text.trim());
  return match ? `${match[1]}T${match[2]}Z` : text;
}

/** Epoch seconds (below 1e11, i.e. before the year 5138) or milliseconds, as milliseconds. */
function epochMs(value: number): number {
  return value < 1e11 ? value * 1000 : value;
}

function isoWeek(date: Date): number {
  const day = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
  const weekday = day.getUTCDay() || 7;
  day.setUTCDate(day.getUTCDate() + 4 - weekday);
  const yearStart = Date.UTC(day.getUTCFullYear(), 0, 1);
  return Math.ceil(((day.getTime() - yearStart) / 86_400_000 + 1) / 7);
}
