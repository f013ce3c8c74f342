// One event as the compiled rules read it: each field's values as text (numbers and booleans
// as written, arrays flattened so that any element can match), and case-folded, each computed
// once per event however many rules look at it. Rules name fields by a FieldKey, a number given
// to each field name once, so the per-event caches are arrays, and one view is reused from event
// to event (reset clears only what the last event filled in).
import type { NormalisedEvent, FieldValue } from '../../telemetry/normalise/event.js';
import { fold } from './fold.js';

/** A field name and the number views cache it under. */
export interface FieldKey {
  readonly name: string;
  readonly id: number;
}

const keys = new Map<string, FieldKey>();

/** The key of a field name: the same object for the same name, for the life of the process. */
export function fieldKey(name: string): FieldKey {
  let key = keys.get(name);
  if (key === undefined) {
    key = { name, id: keys.size };
    keys.set(name, key);
  }
  return key;
}

/** The pseudo-field keyword (field-less) searches read: the event's free text. */
export const KEYWORDS = fieldKey('\u0000keywords');

export class EventView {
  private readonly textCache: (string[] | null | undefined)[] = [];
  private readonly foldedCache: (string[] | null | undefined)[] = [];
  /** The ids whose texts this event has cached. */
  private readonly filled: number[] = [];

  constructor(public event: NormalisedEvent) {}

  /** The same view over another event, nothing cached. */
  reset(event: NormalisedEvent): void {
    const { textCache, foldedCache, filled } = this;
    for (const id of filled) {
      textCache[id] = undefined;
      foldedCache[id] = undefined;
    }
    filled.length = 0;
    this.event = event;
  }

  /** Whether the field is present (a null value counts as present). */
  has(key: FieldKey): boolean {
    return key === KEYWORDS ? this.event.keywords !== '' : this.event.fields[key.name] !== undefined;
  }

  /** The raw value, for numeric and null tests. */
  raw(key: FieldKey): FieldValue | undefined {
    return key === KEYWORDS ? this.event.keywords : this.event.fields[key.name];
  }

  /** The field's non-null values as text; null when absent or only null. */
  texts(key: FieldKey): string[] | null {
    const id = key.id;
    const cache = this.textCache;
    while (cache.length <= id) {
      cache.push(undefined);
      this.foldedCache.push(undefined);
    }
    const cached = cache[id];
    if (cached !== undefined) return cached;
    let texts: string[] | null = null;
    if (key === KEYWORDS) {
      if (this.event.keywords !== '') texts = [this.event.keywords];
    } else {
      const value = this.event.fields[key.name];
      // The common case, one string: no flattening.
      if (typeof value === 'string') texts = [value];
      else if (value !== undefined && value !== null) {
        const out: string[] = [];
        collect(value, out);
        if (out.length > 0) texts = out;
      }
    }
    cache[id] = texts;
    this.filled.push(id);
    return texts;
  }

  /** `texts(key)`, case-folded. */
  folded(key: FieldKey): string[] | null {
    const texts = this.texts(key);
    const cached = this.foldedCache[key.id];
    if (cached !== undefined) return cached;
    let folded: string[] | null = null;
    if (texts !== null) {
      folded = [];
      for (const text of texts) folded.push(fold(text));
    }
    this.foldedCache[key.id] = folded;
    return folded;
  }
}

function collect(value: FieldValue, out: string[]): void {
  if (value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) collect(item, out);
    return;
  }
  out.push(typeof value === 'string' ? value : String(value));
}

/** Scalar values of a field, arrays flattened, nulls kept: for numeric and null tests. */
export function scalars(value: FieldValue | undefined): (string | number | boolean | null)[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return [value];
  const out: (string | number | boolean | null)[] = [];
  for (const item of value) out.push(...scalars(item));
  return out;
}
