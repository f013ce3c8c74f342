// Reads an Elasticsearch bulk body (docs/collector.md, Elasticsearch bulk): action lines, each
// `index` or `create` followed by its document. Unlike `/log_sink` a bulk request is per item: a
// bad document is answered as its item's error and the others are stored. Only a body whose
// structure cannot be followed (an unreadable action line, a truncated pair) is refused whole.
import { isUtf8 } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import { AppError } from '../../core/errors.js';
import { eventTimeOf } from '../intake/event-time.js';
import { MAX_NESTING_DEPTH, nestedTooDeep, type ParsedBody, type ParseLimits } from '../intake/parse.js';
import { isPlainObject } from '../intake/unwrap.js';

export type BulkAction = 'index' | 'create' | 'update' | 'delete';
const ACTIONS = new Set<string>(['index', 'create', 'update', 'delete']);
/** Metadata Elasticsearch takes on an action line; anything else refuses the body, as there. */
const META_KEYS = new Set([
  '_index',
  '_id',
  '_type',
  'routing',
  'pipeline',
  'require_alias',
  'require_data_stream',
  'list_executed_pipelines',
  'version',
  'version_type',
  'if_seq_no',
  'if_primary_term',
  'retry_on_conflict',
  'op_type',
  'dynamic_templates',
  '_source',
]);
/** Elasticsearch's limit on a document id. */
export const MAX_ID_BYTES = 512;

export interface ItemError {
  type: string;
  reason: string;
}

/** One action of the request, in order: stored (with the position of its record) or refused. */
export interface BulkItem {
  action: BulkAction;
  index: string | null;
  id: string | null;
  /** Index into the parsed records when stored; undefined when refused. */
  record?: number;
  error?: ItemError;
}

export interface ParsedBulk {
  stored: ParsedBody;
  items: BulkItem[];
}

const NEWLINE = 0x0a;

/** Parses the body; `defaultIndex` is the `{index}` of `/{index}/_bulk`. */
export function parseBulkBody(body: Buffer, limits: ParseLimits, defaultIndex?: string): ParsedBulk {
  if (!isUtf8(body)) throw illegalArgument('the body is not valid UTF-8; the bulk API reads UTF-8 JSON');
  const lines = new LineReader(body);
  const stored: ParsedBody = { records: [], eventTimes: [], metas: [], bytes: 0 };
  const items: BulkItem[] = [];
  for (let line = lines.next(); line; line = lines.next()) {
    const { action, meta } = readAction(line.text, line.number);
    const index = stringMeta(meta._index, '_index', line.number) ?? defaultIndex ?? null;
    const id = stringMeta(meta._id, '_id', line.number) ?? null;
    const item: BulkItem = { action, index, id };
    items.push(item);
    // delete has no document line; update's is a partial document, never a record.
    const source = action === 'delete' ? undefined : lines.next();
    if (action !== 'delete' && !source) throw truncated(line.number, action);
    if (action === 'update' || action === 'delete') {
      item.error = immutable(action);
    } else if (index === null) {
      item.error = { type: 'action_request_validation_exception', reason: 'Validation Failed: 1: index is missing;' };
    } else if (id !== null && Buffer.byteLength(id) > MAX_ID_BYTES) {
      item.error = {
        type: 'illegal_argument_exception',
        reason: `id [${id}] is too long, must be no longer than ${MAX_ID_BYTES} bytes but was: ${Buffer.byteLength(id)}`,
      };
    } else if (source) {
      item.error = addDocument(stored, item, source, limits);
    }
  }
  if (items.length === 0) {
    throw new AppError('empty_body', 'Validation Failed: 1: no requests added;');
  }
  return { stored, items };
}

/** Stores the document in `stored` for the item, or answers why it cannot be. */
function addDocument(stored: ParsedBody, item: BulkItem, source: Line, limits: ParseLimits): ItemError | undefined {
  const bytes = source.end - source.start;
  if (bytes > limits.maxRecordBytes) {
    return {
      type: 'document_parsing_exception',
      reason: `[${source.number}:1] the document is ${bytes} bytes; the largest accepted document is ${limits.maxRecordBytes} bytes`,
    };
  }
  if (nestedTooDeep(source.raw)) {
    return {
      type: 'document_parsing_exception',
      reason: `[${source.number}:1] objects and arrays nest deeper than ${MAX_NESTING_DEPTH} levels`,
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(source.text);
  } catch (error) {
    return { type: 'document_parsing_exception', reason: `[${source.number}:1] failed to parse: ${String(error)}` };
  }
  if (!isPlainObject(value)) {
    return {
      type: 'document_parsing_exception',
      reason: `[${source.number}:1] failed to parse: the document must be a JSON object, got ${kindOf(value)}`,
    };
  }
  // The id is named before storing: the answer gives it, and the record keeps it as metadata.
  item.id ??= generateId();
  item.record = stored.records.length;
  const meta = JSON.stringify({ _index: item.index, _id: item.id });
  stored.records.push(source.text);
  stored.eventTimes.push(eventTimeOf(value) ?? Number.NaN);
  stored.metas.push(meta);
  stored.bytes += source.text.length + meta.length;
  return undefined;
}

function readAction(text: string, number: number): { action: BulkAction; meta: Record<string, unknown> } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw illegalArgument(`Malformed action/metadata line [${number}]: ${String(error)}`);
  }
  if (!isPlainObject(value)) {
    throw illegalArgument(
      `Malformed action/metadata line [${number}], expected START_OBJECT but found ${kindOf(value)}`,
    );
  }
  const keys = Object.keys(value);
  const [action] = keys;
  if (keys.length !== 1 || action === undefined || !ACTIONS.has(action)) {
    throw illegalArgument(
      `Malformed action/metadata line [${number}], expected one of index, create, update, delete but found [${keys.join(', ')}]`,
    );
  }
  const meta = value[action];
  if (!isPlainObject(meta)) {
    throw illegalArgument(`Malformed action/metadata line [${number}], expected START_OBJECT after [${action}]`);
  }
  for (const key of Object.keys(meta)) {
    if (!META_KEYS.has(key))
      throw illegalArgument(`Action/metadata line [${number}] contains an unknown parameter [${key}]`);
  }
  return { action: action as BulkAction, meta };
}

function stringMeta(value: unknown, name: string, number: number): string | undefined {
  if (value === undefined || value === null) return undefined;
  // Elasticsearch takes a number as an id and writes it as text.
  if (typeof value === 'number' && name === '_id') return String(value);
  if (typeof value === 'string' && value !== '') return value;
  throw illegalArgument(`Action/metadata line [${number}]: [${name}] must be a non-empty string`);
}

function immutable(action: BulkAction): ItemError {
  return {
    type: 'action_request_validation_exception',
    reason: `Validation Failed: 1: ${action} is not supported: stored records are evidence and cannot be changed or removed; send documents with index or create;`,
  };
}

/** A random id of 20 base64url characters, as Elasticsearch generates them. */
export function generateId(): string {
  return randomBytes(15).toString('base64url');
}

function kindOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

function illegalArgument(detail: string): AppError {
  return new AppError('invalid_json', detail);
}

function truncated(number: number, action: BulkAction): AppError {
  return illegalArgument(
    `Malformed bulk body: the ${action} action on line [${number}] has no document line; ` +
      'the bulk request must be terminated by a newline [\\n]',
  );
}

interface Line {
  number: number;
  start: number;
  end: number;
  raw: Buffer;
  text: string;
}

/** The non-blank lines of the body, in order (CRLF accepted, blank lines skipped). */
class LineReader {
  private at: number;
  private number = 0;

  constructor(private readonly body: Buffer) {
    this.at = body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
  }

  next(): Line | undefined {
    while (this.at < this.body.length) {
      this.number++;
      const start = this.at;
      let end = this.body.indexOf(NEWLINE, start);
      this.at = end === -1 ? this.body.length : end + 1;
      if (end === -1) end = this.body.length;
      const raw = this.body.subarray(start, end);
      const text = raw.toString('utf8').replace(/\r$/, '');
      if (text.trim() !== '') return { number: this.number, start, end: start + Buffer.byteLength(text), raw, text };
    }
    return undefined;
  }
}
