// Flattens a parsed record into an event's field map: nested objects become dotted names
// (`a.b.c`), arrays of scalars stay arrays, and arrays of objects become one array per dotted
// path under them. Capped, so a hostile record costs bounded time and memory.
import type { FieldValue } from './event.js';
import type { Fields } from './fields.js';

export interface FlattenLimits {
  /**
   * Segments in a flattened name (`a.b.c` has 3); deeper subtrees are dropped. Real telemetry
   * stays well under it (a pod spec inside a Kubernetes audit event reaches about 10), and
   * every level lengthens every name below it.
   */
  maxDepth: number;
  /** Field names taken from the record; later ones are dropped. */
  maxFields: number;
  /** Values kept in one array field; the rest are dropped. */
  maxArrayValues: number;
}

export const FLATTEN_LIMITS: FlattenLimits = { maxDepth: 16, maxFields: 1000, maxArrayValues: 1000 };

/** Set on an event whose record hit a cap, so an analyst sees that fields are missing. */
export const TRUNCATED_FIELD = 'sightline.truncated';

type Scalar = string | number | boolean | null;

/**
 * Dotted names, built once and reused: a fresh `${prefix}.${key}` must be flattened and hashed
 * before it can key the field map, and that cost dominated nested records (Laurel, Winlogbeat,
 * osquery). Keys from JSON.parse and names from here already carry their hashes. Cleared when
 * full, so records with ever-new keys cannot grow it and common names come back soon after.
 */
const MAX_CACHED_NAMES = 50_000;
const nameCache = new Map<string, Map<string, string>>();
let cachedNames = 0;

function dottedName(prefix: string, key: string): string {
  let byKey = nameCache.get(prefix);
  if (byKey === undefined) {
    byKey = new Map();
    nameCache.set(prefix, byKey);
  }
  let name = byKey.get(key);
  if (name === undefined) {
    name = `${prefix}.${key}`;
    if (cachedNames >= MAX_CACHED_NAMES) {
      nameCache.clear();
      cachedNames = 0;
    } else {
      byKey.set(key, name);
      cachedNames++;
    }
  }
  return name;
}

/** Adds the record's fields to `fields`; returns true when a cap cut something off. */
export function flattenInto(
  record: Record<string, unknown>,
  fields: Fields,
  limits: FlattenLimits = FLATTEN_LIMITS,
): boolean {
  const flattener = new Flattener(fields, limits);
  flattener.object(record, '', 1);
  return flattener.truncated;
}

class Flattener {
  count = 0;
  truncated = false;

  constructor(
    private readonly fields: Fields,
    private readonly limits: FlattenLimits,
  ) {}

  object(object: Record<string, unknown>, prefix: string, depth: number): void {
    for (const key in object) {
      if (this.count >= this.limits.maxFields) {
        // Everything further would be dropped: stop walking a record that is only width.
        this.truncated = true;
        return;
      }
      const value = object[key];
      const name = prefix === '' ? key : dottedName(prefix, key);
      if (value === null || typeof value !== 'object') this.set(name, value as Scalar);
      else if (Array.isArray(value)) this.array(name, value, depth);
      else if (depth < this.limits.maxDepth) this.object(value as Record<string, unknown>, name, depth + 1);
      else this.truncated = true;
    }
  }

  private set(name: string, value: FieldValue): void {
    // Counting every set (not only new names) saves a lookup per field; a name can repeat only
    // when a literal dotted key meets the same nested path, so the cap is barely stricter.
    if (this.count >= this.limits.maxFields) {
      this.truncated = true;
      return;
    }
    this.count++;
    this.fields[name] = value;
  }

  private array(name: string, array: unknown[], depth: number): void {
    let scalars = true;
    for (const item of array) {
      if (item !== null && typeof item === 'object') {
        scalars = false;
        break;
      }
    }
    if (scalars) {
      // The parsed array itself becomes the value: no copy on the common path.
      if (array.length <= this.limits.maxArrayValues) this.set(name, array as Scalar[]);
      else {
        this.truncated = true;
        this.set(name, array.slice(0, this.limits.maxArrayValues) as Scalar[]);
      }
      return;
    }
    const collected = new Map<string, FieldValue[]>();
    this.collectArray(collected, name, array, depth);
    for (const [path, values] of collected) this.set(path, values);
  }

  /** Values under an array, by dotted path; nested arrays are concatenated into their path. */
  private collectArray(collected: Map<string, FieldValue[]>, path: string, array: unknown[], depth: number): void {
    if (depth >= this.limits.maxDepth) {
      this.truncated = true;
      return;
    }
    for (const item of array) {
      if (item === null || typeof item !== 'object') this.push(collected, path, item as Scalar);
      else if (Array.isArray(item)) this.collectArray(collected, path, item, depth + 1);
      else this.collectObject(collected, path, item as Record<string, unknown>, depth + 1);
    }
  }

  private collectObject(
    collected: Map<string, FieldValue[]>,
    prefix: string,
    object: Record<string, unknown>,
    depth: number,
  ): void {
    for (const key in object) {
      const value = object[key];
      const path = dottedName(prefix, key);
      if (value === null || typeof value !== 'object') this.push(collected, path, value as Scalar);
      else if (Array.isArray(value)) this.collectArray(collected, path, value, depth);
      else if (depth < this.limits.maxDepth)
        this.collectObject(collected, path, value as Record<string, unknown>, depth + 1);
      else this.truncated = true;
    }
  }

  private push(collected: Map<string, FieldValue[]>, path: string, value: Scalar): void {
    let values = collected.get(path);
    if (values === undefined) {
      if (this.count + collected.size >= this.limits.maxFields) {
        this.truncated = true;
        return;
      }
      values = [];
      collected.set(path, values);
    }
    if (values.length < this.limits.maxArrayValues) values.push(value);
    else this.truncated = true;
  }
}
