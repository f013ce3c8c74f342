// The identity tables: tenants, the people and API tokens that act in them, their web sessions,
// and the audit trail of what they did.
import type { Generated } from 'kysely';

export interface TenantsTable {
  id: Generated<number>;
  code_name: string;
  name: string;
  /** Epoch milliseconds. */
  created_at: number;
  /** JSON object text. */
  settings: string;
  /** Epoch ms when the platform approved this tenant writing observations; null: not approved. */
  observation_write_approved_at: number | null;
  /** Observations the tenant may write per hour once approved (the approved volume). */
  observation_write_limit_per_hour: number | null;
  /**
   * 1 (the default): AI summaries available; 0: the tenant opted out, so its cases show no summary
   * and the model input and output cached for it are dropped.
   */
  ai_summaries_enabled: Generated<number>;
  /** Operator override of the summary provider; null: the deployment's. */
  summary_provider: string | null;
}

export type Role = 'operator' | 'admin' | 'analyst' | 'viewer';

/** People. Operators belong to no tenant (tenant_id null) and act across tenants. */
export interface UsersTable {
  id: string;
  tenant_id: number | null;
  /** Lower-cased; unique within the tenant (and among operators): one email may hold accounts in several tenants. */
  email: string;
  name: string;
  role: Role;
  /** scrypt, self-describing: `scrypt$N$r$p$salt$hash`. */
  password_hash: string;
  created_at: number;
  disabled_at: number | null;
  /** Deleted users keep their row, so what they did keeps their name; they never sign in again. */
  deleted_at: number | null;
  last_login_at: number | null;
}

/**
 * One-time codes that let a person set their password: an invitation, or a reset an admin
 * issued. Stored as the SHA-256 of the code; used or replaced, the row is gone.
 */
export interface UserCodesTable {
  code_hash: string;
  user_id: string;
  purpose: 'invitation' | 'password_reset';
  created_at: number;
  expires_at: number;
  /** Who issued it, as the audit log names them. */
  created_by: string;
}

/** Web sessions; `id` is the SHA-256 of the cookie value, never the value itself. */
export interface SessionsTable {
  id: string;
  user_id: string;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
  ip: string;
  user_agent: string;
}

export interface ApiTokensTable {
  id: string;
  tenant_id: number;
  name: string;
  /** SHA-256 of the token value (hex). The value itself is never stored. */
  token_hash: string;
  /** The value's last four characters, so people can tell their tokens apart. */
  token_hint: string;
  /** JSON array of permission names. */
  permissions: string;
  created_by_user_id: string | null;
  /** Who created it, as shown in the token list: an email, or `cli`. */
  created_by: string;
  created_at: number;
  expires_at: number | null;
  deleted_at: number | null;
  deleted_by: string | null;
  last_used_at: number | null;
  last_used_ip: string | null;
  /** The token that minted this one (null when a person or the CLI did). */
  parent_token_id: string | null;
  /** Why the token was revoked along with another (its parent's deletion); null otherwise. */
  revoked_reason: string | null;
}

export interface AuditEventsTable {
  seq: Generated<number>;
  id: string;
  /** Null for events not tied to a tenant (e.g. a failed login for an unknown email). */
  tenant_id: number | null;
  occurred_at: number;
  action: string;
  outcome: 'success' | 'failure';
  actor_type: 'user' | 'token' | 'cli' | 'system' | 'anonymous';
  actor_id: string | null;
  actor_label: string;
  ip: string | null;
  target_type: string | null;
  target_id: string | null;
  /** JSON object text. */
  details: string;
}
