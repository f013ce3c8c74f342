// Cases: observations grouped for people to work on, with their lookup tables (observations,
// devices, techniques, tags), comments, change history and per-tenant case numbers.
import type { Generated } from 'kysely';

export interface CaseCountersTable {
  tenant_id: number;
  last_number: number;
}

export interface CasesTable {
  seq: Generated<number>;
  id: string;
  tenant_id: number;
  number: number;
  title: string;
  description: string;
  score: number;
  severity: string;
  /** 1 once a person set the severity: grouping no longer raises it. */
  severity_manual: number;
  status: string;
  resolution: string | null;
  closing_comment: string | null;
  assignee_id: string | null;
  /** What grouping matched on: `device:<id>`, `device:<id>:rule:<rule>` or `rule:<rule>:<source>`. */
  group_key: string;
  observation_count: number;
  max_level: string;
  /** JSON: [{id, title, level, count}] of the rules behind the observations. */
  rules: string;
  /** JSON arrays. */
  techniques: string;
  tactics: string;
  tags: string;
  /** Lower-cased number, title, description, hosts and tags, for the free-text filter. */
  search_text: string;
  merged_into: string | null;
  version: number;
  created_at: number;
  updated_at: number;
  first_observation_at: number;
  last_observation_at: number;
  closed_at: number | null;
  /** When it first left `new` (the acknowledge clock stops). */
  acknowledged_at: Generated<number | null>;
  /** Time spent on hold before the current hold (the resolve clock pauses on hold). */
  held_ms: Generated<number>;
  /** When the current hold began; null: not on hold. */
  held_since: Generated<number | null>;
  /** When the SLA watcher found each clock breached (the event is sent once). */
  acknowledge_breached_at: Generated<number | null>;
  resolve_breached_at: Generated<number | null>;
}

export interface CaseObservationsTable {
  observation_id: string;
  case_id: string;
  tenant_id: number;
  added_at: number;
}

export interface CaseDevicesTable {
  case_id: string;
  device_id: string;
  tenant_id: number;
}

export interface CaseTechniquesTable {
  case_id: string;
  technique: string;
  tenant_id: number;
}

export interface CaseTagsTable {
  case_id: string;
  tag: string;
  tenant_id: number;
}

export interface CaseCommentsTable {
  seq: Generated<number>;
  id: string;
  case_id: string;
  tenant_id: number;
  author_type: string;
  author_id: string;
  author_label: string;
  body: string;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

export interface CaseHistoryTable {
  seq: Generated<number>;
  case_id: string;
  tenant_id: number;
  at: number;
  actor_type: string;
  actor_id: string | null;
  actor_label: string;
  action: string;
  /** JSON object: field → {from, to}, or the action's details. */
  changes: string;
}
