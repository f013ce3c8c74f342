// Why a single sign-on did not sign anyone in: the code the login page shows as a sentence
// (`sso_error`), and the more precise reason the tenant's audit log keeps.
import type { TenantRow } from '../tenants/tenant-store.js';

export type SsoFailure =
  | 'sso_unavailable'
  | 'invalid_state'
  | 'provider_error'
  | 'exchange_failed'
  | 'email_not_verified'
  | 'invalid_email'
  | 'domain_not_allowed'
  | 'domain_not_verified'
  | 'no_role'
  | 'account_unavailable'
  | 'link_required'
  | 'too_many_attempts'
  | 'cross_site';

export interface SsoRefusalContext {
  audit?: string;
  tenant?: TenantRow;
  tenantCode?: string;
  email?: string;
  cause?: unknown;
  /** For `link_required`: the sealed pending link the browser keeps until the person confirms. */
  linkCookie?: string;
}

/**
 * A refused sign-in: `reason` goes to the login page as its `sso_error`, `audit` (more precise)
 * to the tenant's audit log, with the email the provider vouched for when there was one.
 */
export class SsoRefusal extends Error {
  override name = 'SsoRefusal';
  readonly audit: string;
  constructor(
    readonly reason: SsoFailure,
    readonly context: SsoRefusalContext = {},
  ) {
    super(
      `single sign-on refused: ${context.audit ?? reason}`,
      context.cause === undefined ? {} : { cause: context.cause },
    );
    this.audit = context.audit ?? reason;
  }

  /** The code name to offer again on the login page. */
  get tenantCode(): string | undefined {
    return this.context.tenant?.code_name ?? this.context.tenantCode;
  }
}
