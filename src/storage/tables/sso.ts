// Single sign-on (identity/sso-*.ts): one OpenID Connect provider per tenant.

export interface SsoConfigsTable {
  tenant_id: number;
  /** The provider's issuer URL, as discovery must confirm it. */
  issuer: string;
  client_id: string;
  /** AES-256-GCM under the deployment's SSO key, bound to the tenant; never returned. */
  client_secret_sealed: string;
  /** JSON array of lower-cased domains a verified email must belong to. */
  allowed_email_domains: string;
  /** The id token claim that names the person's groups or role (e.g. `groups`). */
  role_claim: string;
  /** JSON object: claim value → role (admin, analyst, viewer). */
  role_mapping: string;
  /** Role when no mapping matches; null: such a person is refused. */
  default_role: string | null;
  /** 1: people may sign in with it; 0: configured but off. */
  enabled: number;
  created_at: number;
  updated_at: number;
}
