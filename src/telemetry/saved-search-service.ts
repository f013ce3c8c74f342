// Saved telemetry searches: a person names a search (the query and the rest of what the
// telemetry page shows) to run it again. The query is checked when saved, so a saved search
// always runs; each person has at most MAX_SAVED_SEARCHES in a tenant.
import type { Kysely } from 'kysely';
import { AppError } from '../core/errors.js';
import { newId } from '../core/ids.js';
import type { Tables } from '../storage/schema.js';
import { parseTelemetryQuery } from './telemetry-query.js';
import {
  deleteSavedSearch,
  listSavedSearches,
  upsertSavedSearch,
  type Owner,
  type SavedSearchRow,
} from './saved-search-store.js';

export const MAX_SAVED_SEARCHES = 100;

/** What the telemetry page needs besides the query to show the search again. */
export interface SavedView {
  time_range?: string;
  since?: string;
  until?: string;
  order?: 'asc' | 'desc';
  columns?: string[];
  filters?: Record<string, string | number | boolean | null>;
}

export interface SavedSearchInput extends SavedView {
  name: string;
  query: string;
}

export interface SavedSearch extends SavedSearchInput {
  id: string;
  created_at: string;
  updated_at: string;
}

/** The person a saved search belongs to: a signed-in person, or the person who made the token. */
export function ownerOf(tenantId: number, userId: string | null): Owner {
  if (userId === null)
    throw new AppError(
      'session_required',
      'saved searches belong to a person: sign in, or use a token a person created',
    );
  return { tenantId, userId };
}

export async function listSaved(db: Kysely<Tables>, owner: Owner): Promise<SavedSearch[]> {
  return (await listSavedSearches(db, owner)).map(presentSavedSearch);
}

export async function saveSearch(
  db: Kysely<Tables>,
  owner: Owner,
  input: SavedSearchInput,
  now = Date.now(),
): Promise<SavedSearch> {
  const name = input.name.trim();
  if (name === '') throw new AppError('invalid_request', 'name must not be blank', { extensions: { field: 'name' } });
  parseTelemetryQuery(input.query);
  const existing = await listSavedSearches(db, owner);
  if (!existing.some((row) => row.name === name) && existing.length >= MAX_SAVED_SEARCHES)
    throw new AppError('invalid_request', `at most ${MAX_SAVED_SEARCHES} saved searches per person; delete one first`, {
      extensions: { field: 'name' },
    });
  const { name: _name, query, ...view } = input;
  const row = await upsertSavedSearch(db, owner, {
    id: newId('ss'),
    name,
    query,
    view: JSON.stringify(view),
    now,
  });
  return presentSavedSearch(row);
}

export async function removeSavedSearch(db: Kysely<Tables>, owner: Owner, id: string): Promise<void> {
  if (!(await deleteSavedSearch(db, owner, id)))
    throw new AppError('not_found', `no saved search ${JSON.stringify(id)}`);
}

function presentSavedSearch(row: SavedSearchRow): SavedSearch {
  const view = JSON.parse(row.view) as SavedView;
  return {
    id: row.id,
    name: row.name,
    query: row.query,
    ...view,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}
