// State API nodes share through the database (migration 0019): storage/postgres/throttle-store.ts,
// collector/ingest-key-store.ts, storage/data-move.ts.
import type { Generated } from 'kysely';

/** One failed (or still undecided) credential check from a client address. */
export interface AuthFailuresTable {
  id: Generated<number>;
  /** The address as counted: IPv4, or an IPv6 /64. */
  client_key: string;
  at: number;
}

/** An account's current run of failed sign-ins, keyed by a hash of the email as typed. */
export interface AccountThrottleTable {
  account_key: string;
  failures: number;
  last_at: number;
  awaiting_code: number;
}

/** Bumped whenever a tenant's ingest keys or policy change, so every collector reloads them. */
export interface IngestKeyVersionsTable {
  tenant_id: number;
  version: number;
}

/** How far a data move has copied each table (`sightline data migrate`). */
export interface DataMoveProgressTable {
  table_name: string;
  /** Fingerprint of the source deployment: a rerun from another one is refused. */
  source: string;
  last_rowid: number;
  copied: number;
  /** 1 once the table is copied completely. */
  done: number;
}
