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

/** Which person a provider's subject signs in as (identity/sso/sso-links.ts). */
export interface SsoLinksTable {
  user_id: string;
  tenant_id: number;
  /** The issuer the link holds for: another provider of the tenant signs nobody in through it. */
  issuer: string;
  /** The provider's `sub` for the person; null until the next sign-in of a link made before subjects were kept. */
  subject: string | null;
  linked_at: number;
  /** `created` (single sign-on made the person), `confirmed` (the person confirmed after signing in with their password), `no_password` (the person had no other way in). */
  how: string;
}

/** An email domain the tenant proved it holds, so single sign-on accepts its people. */
export interface SsoDomainsTable {
  tenant_id: number;
  /** Lower-cased, as in `allowed_email_domains`. */
  domain: string;
  /** `dns` (the TXT record was found) or `operator` (a platform operator approved it). */
  verified_by: string;
  verified_at: number;
  /** The operator who approved it, as the audit log names them; null for DNS. */
  approved_by: string | null;
}
