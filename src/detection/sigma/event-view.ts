// One event as the compiled rules read it: each field's values as text (numbers and booleans
// as written, arrays flattened so that any element can match), and case-folded, each computed
// once per event however many rules look at it.
import type { NormalisedEvent, FieldValue } from '../../telemetry/normalise/event.js';
import { fold } from './fold.js';

/** The pseudo-field keyword (field-less) searches read: the event's free text. */
export const KEYWORDS = '\u0000keywords';

export class EventView {
  private readonly textCache = new Map<string, string[] | null>();
  private readonly foldedCache = new Map<string, string[] | null>();

  constructor(readonly event: NormalisedEvent) {}

  /** Whether the field is present (a null value counts as present). */
  has(field: string): boolean {
    return field === KEYWORDS ? this.event.keywords !== '' : this.event.fields[field] !== undefined;
  }

  /** The raw value, for numeric and null tests. */
  raw(field: string): FieldValue | undefined {
    return field === KEYWORDS ? this.event.keywords : this.event.fields[field];
  }

  /** The field's non-null values as text; null when absent or only null. */
  texts(field: string): string[] | null {
    let texts = this.textCache.get(field);
    if (texts === undefined) {
      const out: string[] = [];
      if (field === KEYWORDS) {
        if (this.event.keywords !== '') out.push(this.event.keywords);
      } else {
        const value = this.event.fields[field];
        if (value !== undefined) collect(value, out);
      }
      texts = out.length === 0 ? null : out;
      this.textCache.set(field, texts);
    }
    return texts;
  }

  /** `texts(field)`, case-folded. */
  folded(field: string): string[] | null {
    let folded = this.foldedCache.get(field);
    if (folded === undefined) {
      const texts = this.texts(field);
      folded = texts === null ? null : texts.map(fold);
      this.foldedCache.set(field, folded);
    }
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
