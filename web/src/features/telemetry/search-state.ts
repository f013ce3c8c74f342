// The telemetry search as it lives in the URL (query, time range, field filters, columns,
// order, the page's cursors), and how that turns into the API's criteria. Relative ranges ("last 24 hours") are
// resolved against the moment of the search, so paging and live tail agree on one range.
import type { UrlFilters } from '../../lib/url-state';
import type { FieldFilters, FieldValue, SearchCriteria } from './types';

export const urlNames = ['q', 'range', 'since', 'until', 'f', 'cols', 'order', 'c'] as const;
export type TelemetryUrl = UrlFilters<(typeof urlNames)[number]>;

export interface RangePreset {
  value: string;
  label: string;
  /** Span back from now; absent for the custom range. */
  ms?: number;
}

export const DEFAULT_RANGE = '24h';
const defaultPreset: RangePreset = { value: DEFAULT_RANGE, label: 'Last 24 hours', ms: 86_400_000 };

export const rangePresets: RangePreset[] = [
  { value: '15m', label: 'Last 15 minutes', ms: 15 * 60_000 },
  { value: '1h', label: 'Last hour', ms: 3_600_000 },
  defaultPreset,
  { value: '7d', label: 'Last 7 days', ms: 7 * 86_400_000 },
  { value: 'custom', label: 'Custom range…' },
];

export function rangeOf(url: TelemetryUrl): RangePreset {
  return rangePresets.find((preset) => preset.value === (url.range ?? DEFAULT_RANGE)) ?? defaultPreset;
}

/** A relative range follows "now": live tail is offered for these only. */
export function isRelative(url: TelemetryUrl): boolean {
  return rangeOf(url).ms !== undefined;
}

/** The receive-time bounds of the URL's range, relative ones counted back from `now`. */
export function resolveRange(url: TelemetryUrl, now: number): { since?: string; until?: string } {
  const preset = rangeOf(url);
  if (preset.ms !== undefined) return { since: new Date(now - preset.ms).toISOString() };
  const valid = (value: string | undefined) => (value && !Number.isNaN(Date.parse(value)) ? value : undefined);
  const since = valid(url.since);
  const until = valid(url.until);
  return { ...(since ? { since } : {}), ...(until ? { until } : {}) };
}

/** Words of the range for sentences: "in the last 24 hours", "between … and …". */
export function describeRange(url: TelemetryUrl, format: (iso: string) => string): string {
  const preset = rangeOf(url);
  if (preset.ms !== undefined) return `in the ${preset.label.toLowerCase()}`;
  const { since, until } = resolveRange(url, Date.now());
  if (since && until) return `between ${format(since)} and ${format(until)}`;
  if (since) return `since ${format(since)}`;
  if (until) return `before ${format(until)}`;
  return 'at any time';
}

/** Filters are kept in the URL as one JSON object (`f`), which keeps their JSON types. */
export function parseFilters(text: string | undefined): FieldFilters {
  if (!text) return {};
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
    return Object.fromEntries(
      Object.entries(value).filter(
        (entry): entry is [string, FieldValue] =>
          entry[1] === null || ['string', 'number', 'boolean'].includes(typeof entry[1]),
      ),
    );
  } catch {
    // A hand-edited, broken link: start without filters rather than fail the page.
    return {};
  }
}

export function encodeFilters(filters: FieldFilters): string {
  return Object.keys(filters).length === 0 ? '' : JSON.stringify(filters);
}

export type ValueKind = 'auto' | 'text' | 'number' | 'boolean' | 'null';

/** A typed filter value from what was typed; `auto` reads 500 as a number, true as a boolean, "500" (quoted) as text. */
export function parseFilterValue(text: string, kind: ValueKind): FieldValue | Error {
  const trimmed = text.trim();
  switch (kind) {
    case 'text':
      return text;
    case 'null':
      return null;
    case 'boolean':
      if (trimmed === 'true' || trimmed === 'false') return trimmed === 'true';
      return new Error('A boolean is true or false');
    case 'number': {
      const number = Number(trimmed);
      return trimmed !== '' && Number.isFinite(number) ? number : new Error(`${JSON.stringify(text)} is not a number`);
    }
    case 'auto':
      if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(trimmed)) return Number(trimmed);
      if (trimmed === 'true' || trimmed === 'false') return trimmed === 'true';
      if (trimmed === 'null') return null;
      if (/^".*"$/.test(trimmed)) {
        try {
          return JSON.parse(trimmed) as string;
        } catch {
          return trimmed.slice(1, -1);
        }
      }
      return text;
  }
}

/** How a filter value reads: text in quotes, so "500" and 500 look different. */
export function formatFilterValue(value: FieldValue): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

export function typeName(value: FieldValue): string {
  return value === null ? 'null' : typeof value === 'string' ? 'text' : typeof value;
}

/** `source|type` shows the first of the fields present; `message` falls back to the whole record. */
export const DEFAULT_COLUMNS = ['source|type', 'message'];

export function parseColumns(text: string | undefined): string[] {
  if (text === undefined) return DEFAULT_COLUMNS;
  if (text === '-') return [];
  return [
    ...new Set(
      text
        .split(',')
        .map((column) => column.trim())
        .filter(Boolean),
    ),
  ];
}

export function encodeColumns(columns: string[]): string {
  if (columns.length === DEFAULT_COLUMNS.length && columns.every((column, i) => column === DEFAULT_COLUMNS[i]))
    return '';
  return columns.length === 0 ? '-' : columns.join(',');
}

export function criteriaOf(url: TelemetryUrl, now: number): SearchCriteria {
  const filters = parseFilters(url.f);
  const query = url.q?.trim();
  return {
    ...(query ? { query } : {}),
    ...resolveRange(url, now),
    ...(Object.keys(filters).length > 0 ? { filters } : {}),
  };
}
