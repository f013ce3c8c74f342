// Partner organisations, the tenants each serves, and their API tokens (migration 0058;
// identity/partners/).

export interface PartnersTable {
  /** `ptn_…`. */
  id: string;
  /** Same rule as a tenant's code name; unique among partners. */
  code_name: string;
  name: string;
  created_at: number;
  /** Who created it: an operator's email, or `cli`. */
  created_by: string;
}

/** One row per tenant a partner serves. */
export interface PartnerTenantsTable {
  partner_id: string;
  tenant_id: number;
  added_at: number;
  added_by: string;
}

/** A partner's API tokens: `api_tokens` without a tenant, acting in each of the partner's tenants. */
export interface PartnerTokensTable {
  /** `ptk_…`. */
  id: string;
  partner_id: string;
  name: string;
  /** SHA-256 of the token value (hex). The value itself is never stored. */
  token_hash: string;
  token_hint: string;
  /** JSON array of permission names: what the token may do in each of the partner's tenants. */
  permissions: string;
  created_by: string;
  created_at: number;
  expires_at: number | null;
  deleted_at: number | null;
  deleted_by: string | null;
  last_used_at: number | null;
  last_used_ip: string | null;
}
