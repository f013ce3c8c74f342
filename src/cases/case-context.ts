// What case operations run with: the feature's dependencies, set once when the routes are
// registered, and per request the tenant and the actor. One object instead of long positional
// signatures, so a new dependency is a field, not a change to every call.
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Db } from '../storage/database.js';
import type { RowLocks } from '../storage/row-locks.js';
import type { Tables } from '../storage/schema.js';
import type { AttackCatalogue } from '../detection/attack.js';
import type { AuditActor } from '../identity/principal.js';
import type { DeviceRow } from '../devices/device-store.js';
import type { CaseRow } from './case-store.js';
import type { CaseSearchStorage } from './case-search-sets.js';

/** A case's AI summary as the API shows it: its shape belongs to the summaries feature. */
export type CaseSummaryView = object;

/** The OpenAPI/JSON-schema id under which the summaries feature registers that shape. */
export const CASE_SUMMARY_SCHEMA_ID = 'CaseSummary';

/** The summary in case responses, by reference to the schema the summaries feature registers. */
export const CaseSummaryRef = Type.Unsafe<CaseSummaryView>(Type.Ref(`${CASE_SUMMARY_SCHEMA_ID}#`));

/**
 * The summaries already generated for some cases. Summaries sit above cases (they read cases
 * to write one), so cases state what they need and the composition root passes it in.
 */
export interface CaseSummaries {
  /** Presented summaries by case id; a case without one is absent. Reading never generates one. */
  shownOn(
    db: Db,
    tenantId: number,
    cases: readonly { row: CaseRow; devices: readonly DeviceRow[] }[],
  ): Promise<Map<string, CaseSummaryView>>;
}

/** Set once, when the case routes are registered. */
export interface CasesDeps {
  db: Kysely<Tables>;
  /** Locks for merging cases. */
  locks: RowLocks;
  /** Where case search differs between databases. */
  search: CaseSearchStorage;
  catalogue: AttackCatalogue;
  summaries: CaseSummaries;
}

/** One request: the feature's dependencies plus who acts in which tenant, and when. */
export interface CaseRequest extends CasesDeps {
  tenantId: number;
  actor: AuditActor;
  /** The time to stamp; absent: taken once the write lock is held. */
  now?: number;
}

/** What presenting cases needs (reads only, so any transaction or the database). */
export interface CaseReader {
  db: Db;
  catalogue: AttackCatalogue;
  summaries: CaseSummaries;
  tenantId: number;
}
