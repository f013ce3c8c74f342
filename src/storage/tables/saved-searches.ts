// Saved telemetry searches (telemetry/saved-search-*.ts): a person's named searches in a tenant.

export interface SavedSearchesTable {
  id: string;
  tenant_id: number;
  user_id: string;
  name: string;
  /** The query, in the telemetry query language. */
  query: string;
  /** JSON object: the rest of the search (time range, order, columns, field filters). */
  view: string;
  created_at: number;
  updated_at: number;
}
