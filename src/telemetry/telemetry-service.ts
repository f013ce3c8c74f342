// Searching and exporting stored records for readers (the /v1 API and the CLI): the rules a
// search must follow, read-your-writes for text search, paging, and the record presenter.
import type { Kysely } from 'kysely';
import { recordId, recordIds } from '../core/record-ids.js';
import { RawJson, type AsRead } from '../core/exact-json.js';
import { parseIsoTime } from '../core/time.js';
import { AppError } from '../core/errors.js';
import { hasControlCharacter } from '../core/control-characters.js';
import type { Database } from '../storage/database.js';
import type { Tables } from '../storage/schema.js';
import {
  hasText,
  recordKeyOf,
  searchRecords,
  type FieldFilter,
  type FieldValue,
  type RecordKey,
  type RecordMatch,
  type StoredRecordRow,
} from './telemetry-store.js';
import { MAX_FIELD_PATH_LENGTH, parseTelemetryQuery } from './telemetry-query.js';
import {
  catchUpSearchIndex,
  COMPLETE,
  freshIndex,
  type IndexFreshness,
  type SearchIndexCatchUp,
  type SearchIndexKeeper,
} from './search-index.js';
import type { TailPosition } from './tail-store.js';
import type { TelemetryStorage } from './telemetry-ports.js';

export interface StoredRecord {
  id: string;
  received_at: string;
  event_time: string;
  /** The stored text, written into answers as it is (core/exact-json.ts): never parsed again. */
  record: RawJson;
  meta?: RawJson;
}

/** A stored record as a client reads it from an answer (its record and meta parsed). */
export type RecordAsRead = AsRead<StoredRecord>;

/** Rows as the API shows them, with their public ids (core/record-ids.ts), a page at a time. */
export function presentRecords(rows: readonly StoredRecordRow[]): StoredRecord[] {
  const ids = recordIds(rows.map((row) => row.seq));
  return rows.map((row, i) => presentRecord(row, ids[i] ?? recordId(row.seq)));
}

function presentRecord(row: StoredRecordRow, id: string): StoredRecord {
  return {
    id,
    received_at: new Date(row.received_at).toISOString(),
    event_time: new Date(row.event_time).toISOString(),
    record: new RawJson(row.record),
    ...(row.meta ? { meta: new RawJson(row.meta) } : {}),
  };
}

/** What a search matches, without order and paging. */
export type RecordFilter = RecordMatch;

export type SearchOrder = 'asc' | 'desc';

export const MAX_FIELD_FILTERS = 20;
export { MAX_FIELD_PATH_LENGTH };

/** A search as the API takes it: ISO 8601 times and dotted field paths. */
export interface SearchInput {
  since?: string;
  until?: string;
  query?: string;
  filters?: Record<string, FieldValue>;
}

/**
 * Where reads go: the database, its telemetry storage ports and, in a server, the writer that
 * may keep the search index.
 */
export interface TelemetryReader {
  database: Database;
  storage: TelemetryStorage;
  searchIndex: SearchIndexCatchUp;
  writer?: SearchIndexKeeper;
}

/** Checks what the request schema cannot (time order, field paths, the query) and builds the filter. */
export function parseSearch(input: SearchInput): RecordFilter {
  const since = parseIsoTime('since', input.since);
  const until = parseIsoTime('until', input.until);
  if (since !== undefined && until !== undefined && since >= until) {
    throw new AppError('invalid_request', `until (${input.until}) must be later than since (${input.since})`, {
      extensions: { field: 'until' },
    });
  }
  const filters = Object.entries(input.filters ?? {});
  if (filters.length > MAX_FIELD_FILTERS) {
    throw new AppError('invalid_request', `at most ${MAX_FIELD_FILTERS} filters are allowed (got ${filters.length})`, {
      extensions: { field: 'filters' },
    });
  }
  const fields = filters.map(([path, value]): FieldFilter => {
    const problem =
      fieldPathProblem(path) ??
      (typeof value === 'number' && !Number.isFinite(value) ? 'must compare with a finite number' : undefined);
    if (problem)
      throw new AppError('invalid_request', `filters: the field ${JSON.stringify(path)} ${problem}`, {
        extensions: { field: 'filters', filter: path },
      });
    return { path: path.split('.'), value };
  });
  const query = input.query === undefined ? undefined : parseTelemetryQuery(input.query);
  return {
    ...(since !== undefined ? { since } : {}),
    ...(until !== undefined ? { until } : {}),
    ...(query ? { query } : {}),
    ...(fields.length > 0 ? { fields } : {}),
  };
}

/**
 * A path is object keys joined by dots. Segments may not be empty, and may not hold `"`, `\` or
 * control characters: each database quotes segments differently, and these are where they differ.
 */
function fieldPathProblem(path: string): string | undefined {
  if (path.length > MAX_FIELD_PATH_LENGTH) return `is longer than ${MAX_FIELD_PATH_LENGTH} characters`;
  if (path.split('.').some((segment) => segment === ''))
    return 'has an empty segment: write nested keys as a.b.c, with no leading, trailing or doubled dots';
  if (path.includes('"') || path.includes('\\') || hasControlCharacter(path))
    return 'contains a double quote, a backslash or a control character, which field paths cannot hold';
  return undefined;
}

/**
 * A text search first asks for the index to reach the log's end, so acknowledged records are
 * found, but waits for that only briefly (search-index.ts): it then reads what is indexed, and
 * the answer says how complete that is.
 */
export async function readYourWrites(
  reader: TelemetryReader,
  filter: RecordFilter,
  tenantId: number,
): Promise<IndexFreshness> {
  if (!hasText(filter)) return COMPLETE;
  return freshIndex(reader.database.db, tenantId, () => catchUpSearchIndex(reader.searchIndex, reader.writer));
}

/** Where a page ended: the key of its last record, in the page's order. */
export type PageEnd = RecordKey;

/**
 * Where the next page starts: after (asc) or before (desc) a record's key. Cursors made before
 * asc cursors carried the receive time name only the sequence; the key is looked up then.
 */
export type PageStart = { order: SearchOrder; from: RecordKey } | { order: 'asc'; afterSeq: number };

export interface RecordPage {
  records: StoredRecord[];
  /** The last record's key when another page follows; absent on the last page. */
  next?: PageEnd;
  /** The log's end, taken before the page was read: a tail from here misses nothing after it. */
  tail: TailPosition;
  /** Whether a text search saw every record, or the index had not reached some yet. */
  freshness: IndexFreshness;
}

/** One page of the tenant's matching records, oldest first (log order) or newest first. */
export async function searchTelemetry(
  reader: TelemetryReader,
  tenantId: number,
  input: SearchInput,
  page: { limit: number; order?: SearchOrder; start?: PageStart },
): Promise<RecordPage> {
  const filter = parseSearch(input);
  const order = page.order ?? 'asc';
  if (page.start && page.start.order !== order) {
    throw new AppError(
      'invalid_cursor',
      `cursor belongs to a search in ${page.start.order} order, not ${order}; pass next_cursor with the same order`,
      {
        extensions: { field: 'cursor' },
      },
    );
  }
  const freshness = await readYourWrites(reader, filter, tenantId);
  const tail = await reader.storage.tail.end(reader.database.db);
  const from = page.start ? await startKey(reader.database.db, tenantId, page.start) : undefined;
  // One more than asked tells whether another page exists, so the last page says so.
  const rows = await searchRecords(reader.database.db, reader.storage.records, tenantId, {
    ...filter,
    order,
    limit: page.limit + 1,
    ...(from ? { from } : {}),
  });
  const shown = rows.slice(0, page.limit);
  const last = shown[shown.length - 1];
  return {
    records: presentRecords(shown),
    tail,
    freshness,
    ...(rows.length > page.limit && last ? { next: { seq: last.seq, receivedAt: last.received_at } } : {}),
  };
}

async function startKey(db: Kysely<Tables>, tenantId: number, start: PageStart): Promise<RecordKey> {
  if ('from' in start) return start.from;
  const key = await recordKeyOf(db, tenantId, start.afterSeq);
  if (!key)
    throw new AppError('invalid_cursor', 'cursor names a record that is no longer stored; start the search again', {
      extensions: { field: 'cursor' },
    });
  return key;
}

/** Rows per query when streaming: large enough to amortise the query, small enough to hold (≈ 1 MB). */
const STREAM_PAGE = 2_000;

/**
 * Every matching record as NDJSON, oldest first unless asked otherwise (at most `max`), a page of
 * lines per chunk. The search is checked, the index caught up and the first page read before
 * this resolves, so those failures can still be answered as errors; later pages are read only as
 * the consumer asks for more.
 */
export async function exportTelemetry(
  reader: TelemetryReader,
  tenantId: number,
  input: SearchInput,
  max?: number,
  order: SearchOrder = 'asc',
): Promise<{ lines: AsyncIterable<string>; freshness: IndexFreshness }> {
  const filter = parseSearch(input);
  const freshness = await readYourWrites(reader, filter, tenantId);
  const pages = rowPages(reader, tenantId, filter, max ?? Number.POSITIVE_INFINITY, order);
  const first = await pages.next();
  const lines = (async function* () {
    try {
      if (first.done) return;
      yield ndjsonPage(first.value);
      for await (const rows of pages) yield ndjsonPage(rows);
    } finally {
      // The consumer may stop early (a client hanging up): end the paging with it.
      await pages.return(undefined);
    }
  })();
  return { lines, freshness };
}

/**
 * The lines presentRecords would give, written around the stored JSON text instead of parsing
 * and serialising every record again (the export's main cost otherwise), so that every record
 * comes back exactly as it was sent. A line break in valid JSON text can only be whitespace
 * between tokens, so a pretty-printed record becomes one line by turning them into spaces.
 */
function ndjsonPage(rows: readonly StoredRecordRow[]): string {
  const ids = recordIds(rows.map((row) => row.seq));
  let out = '';
  for (const [i, row] of rows.entries()) {
    const id = ids[i] ?? recordId(row.seq);
    const meta = row.meta ? `,"meta":${oneLine(row.meta)}` : '';
    out += `{"id":"${id}","received_at":"${new Date(row.received_at).toISOString()}","event_time":"${new Date(row.event_time).toISOString()}","record":${oneLine(row.record)}${meta}}\n`;
  }
  return out;
}

// Two indexOf calls cost a fraction of a regular expression test on every exported record.
const oneLine = (text: string) => (text.includes('\n') || text.includes('\r') ? text.replace(/[\r\n]+/g, ' ') : text);

/** Every record matching the query, in log order, fetched page by page (at most `max`). */
export async function* streamRecords(
  reader: TelemetryReader,
  tenantId: number,
  query: RecordFilter,
  max = Number.POSITIVE_INFINITY,
  onPartial?: (completeUpTo: number) => void,
): AsyncGenerator<StoredRecord> {
  const freshness = await readYourWrites(reader, query, tenantId);
  if (freshness.partial) onPartial?.(freshness.completeUpTo);
  for await (const rows of rowPages(reader, tenantId, query, max)) yield* presentRecords(rows);
}

async function* rowPages(
  { database, storage }: TelemetryReader,
  tenantId: number,
  filter: RecordFilter,
  max: number,
  order: SearchOrder = 'asc',
): AsyncGenerator<StoredRecordRow[]> {
  let last: StoredRecordRow | undefined;
  let remaining = max;
  while (remaining > 0) {
    const limit = Math.min(STREAM_PAGE, remaining);
    const rows = await searchRecords(database.db, storage.records, tenantId, {
      ...filter,
      order,
      limit,
      ...(last ? { from: { receivedAt: last.received_at, seq: last.seq } } : {}),
    });
    if (rows.length > 0) yield rows;
    remaining -= rows.length;
    if (rows.length < limit) return;
    last = rows.at(-1);
  }
}
