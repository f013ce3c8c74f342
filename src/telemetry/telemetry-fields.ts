// Field names for query suggestions: the dotted paths of the tenant's newest records, counted,
// most common first. Only object keys a query can name (the grammar's characters) are listed;
// arrays are not descended into, as a path cannot address their elements.
import type { Kysely } from 'kysely';
import type { Tables } from '../storage/schema.js';
import { newestRecordTexts } from './telemetry-store.js';

export const FIELD_SAMPLE_RECORDS = 1_000;
const MAX_FIELDS = 500;
const MAX_DEPTH = 8;
const NAMEABLE = /^[A-Za-z0-9_@$-]+$/;

export interface FieldCount {
  path: string;
  count: number;
}

export async function recentFields(
  db: Kysely<Tables>,
  tenantId: number,
): Promise<{ fields: FieldCount[]; records_read: number }> {
  const texts = await newestRecordTexts(db, tenantId, FIELD_SAMPLE_RECORDS);
  const counts = new Map<string, number>();
  for (const text of texts) {
    const paths = new Set<string>();
    collect(JSON.parse(text) as unknown, '', 0, paths);
    for (const path of paths) counts.set(path, (counts.get(path) ?? 0) + 1);
  }
  const fields = [...counts]
    .map(([path, count]) => ({ path, count }))
    .sort((a, b) => b.count - a.count || a.path.localeCompare(b.path))
    .slice(0, MAX_FIELDS);
  return { fields, records_read: texts.length };
}

function collect(value: unknown, prefix: string, depth: number, into: Set<string>): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || depth >= MAX_DEPTH) return;
  for (const [key, child] of Object.entries(value)) {
    if (!NAMEABLE.test(key)) continue;
    const path = prefix ? `${prefix}.${key}` : key;
    into.add(path);
    collect(child, path, depth + 1, into);
  }
}
