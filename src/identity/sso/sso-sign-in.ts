// Signing in with the tenant's OpenID Connect provider. `beginSignIn` sends the browser to the
// provider (authorization code flow, PKCE S256, state and nonce) and keeps what the callback
// needs in a sealed cookie for ten minutes; `finishSignIn` exchanges the code (openid-client
// checks issuer, audience, nonce and signature), judges the claims (a verified, acceptable
// email in an allowed domain the tenant proved it holds), finds or provisions the person in that
// tenant only (sso-people.ts), and opens their session. Every refusal is an SsoRefusal whose
// reason the login page shows as text.
import type { Kysely } from 'kysely';
import * as oidc from 'openid-client';
import type { Tables } from '../../storage/schema.js';
import { sameSecret } from '../../core/secrets.js';
import { recordAudit } from '../audit/audit-service.js';
import { startSession, type LoginResult } from '../sessions/session-service.js';
import { findTenantByCodeName, findTenantById, type TenantRow } from '../tenants/tenant-store.js';
import { allowedEmail, claimedRole } from './sso-claims.js';
import type { ProviderCache } from './sso-provider.js';
import { signedInUser } from './sso-people.js';
import { SsoRefusal } from './sso-refusal.js';
import { ssoSealer } from './sso-seal.js';
import { openSsoConfig, SSO_CALLBACK_PATH, type SsoConfig } from './sso-service.js';
import { findSsoConfig, listVerifiedDomains } from './sso-store.js';

export { SsoRefusal, type SsoFailure } from './sso-refusal.js';

export const SSO_FLOW_COOKIE = 'sightline_sso';
/** The flow cookie goes only to the single sign-on routes. */
export const SSO_FLOW_COOKIE_PATH = '/v1/auth/sso';
export const SSO_FLOW_TTL_MS = 10 * 60_000;
const FLOW_CONTEXT = 'sso sign-in flow';

export interface SsoSignInDeps {
  db: Kysely<Tables>;
  providers: ProviderCache;
  publicUrl: string;
}

interface Flow {
  tenantId: number;
  state: string;
  nonce: string;
  verifier: string;
  returnTo: string;
  expiresAt: number;
}

/**
 * The path to land on after sign-in: a same-origin path starting with one `/` (never `//host`
 * or `/\host`, which browsers read as another site); anything else lands on `/`.
 */
export function safeReturnPath(returnTo: string | undefined): string {
  if (returnTo === undefined || returnTo.length > 2048) return '/';
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (!/^\/(?![/\\])/.test(returnTo) || /[\\\u0000-\u001f\u007f\s]/.test(returnTo)) return '/';
  return returnTo;
}

async function enabledConfig(db: Kysely<Tables>, tenant: TenantRow | undefined): Promise<SsoConfig | undefined> {
  if (!tenant) return undefined;
  const row = await findSsoConfig(db, tenant.id);
  if (!row) return undefined;
  const config = openSsoConfig(row, await ssoSealer(db));
  return config.enabled ? config : undefined;
}

/** The provider's authorization URL and the sealed flow cookie for it. */
export async function beginSignIn(
  deps: SsoSignInDeps,
  input: { codeName: string; returnTo: string | undefined },
): Promise<{ location: string; cookie: string }> {
  const tenant = await findTenantByCodeName(deps.db, input.codeName);
  const config = await enabledConfig(deps.db, tenant);
  // An unknown tenant and one without single sign-on look the same.
  if (!tenant || !config) throw new SsoRefusal('sso_unavailable', { tenantCode: input.codeName });
  const provider = await deps.providers.get(tenant.id, config).catch((error: unknown) => {
    throw new SsoRefusal('provider_error', { audit: 'discovery_failed', tenant, cause: error });
  });
  const flow: Flow = {
    tenantId: tenant.id,
    state: oidc.randomState(),
    nonce: oidc.randomNonce(),
    verifier: oidc.randomPKCECodeVerifier(),
    returnTo: safeReturnPath(input.returnTo),
    expiresAt: Date.now() + SSO_FLOW_TTL_MS,
  };
  const location = oidc.buildAuthorizationUrl(provider, {
    redirect_uri: `${deps.publicUrl}${SSO_CALLBACK_PATH}`,
    response_type: 'code',
    scope: 'openid email profile',
    state: flow.state,
    nonce: flow.nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(flow.verifier),
    code_challenge_method: 'S256',
  });
  const sealer = await ssoSealer(deps.db);
  return { location: location.href, cookie: sealer.seal(JSON.stringify(flow), FLOW_CONTEXT) };
}

function openFlow(sealed: string | undefined, sealer: { open(value: string, context: string): string | undefined }) {
  const text = sealed === undefined ? undefined : sealer.open(sealed, FLOW_CONTEXT);
  if (text === undefined) return undefined;
  const flow = JSON.parse(text) as Flow;
  return flow.expiresAt > Date.now() ? flow : undefined;
}

export interface CallbackInput {
  /** The flow cookie as the browser sent it. */
  cookie: string | undefined;
  /** The callback's query string, `?` included (code, state, or the provider's error). */
  search: string;
  ip: string;
  userAgent: string;
}

/** Completes a sign-in at the callback; refusals are audited and thrown as SsoRefusal. */
export async function finishSignIn(
  deps: SsoSignInDeps,
  input: CallbackInput,
): Promise<{ session: LoginResult; returnTo: string }> {
  let tenant: TenantRow | undefined;
  try {
    const flow = openFlow(input.cookie, await ssoSealer(deps.db));
    if (!flow) throw new SsoRefusal('invalid_state', { audit: 'missing_or_expired_flow' });
    tenant = await findTenantById(deps.db, flow.tenantId);
    const config = await enabledConfig(deps.db, tenant);
    if (!tenant || !config) throw new SsoRefusal('sso_unavailable', { tenant });
    const session = await signInWithCode(deps, tenant, config, flow, input);
    return { session, returnTo: flow.returnTo };
  } catch (error) {
    if (!(error instanceof SsoRefusal)) throw error;
    const refused = error.context.tenant ? error : new SsoRefusal(error.reason, { ...error.context, tenant });
    await recordAudit(deps.db, {
      tenantId: refused.context.tenant?.id ?? null,
      action: 'auth.login_failed',
      outcome: 'failure',
      actor: { type: 'anonymous', id: null, label: refused.context.email ?? '(single sign-on)' },
      ip: input.ip,
      details: { method: 'sso', reason: refused.audit },
    });
    throw refused;
  }
}

async function signInWithCode(
  deps: SsoSignInDeps,
  tenant: TenantRow,
  config: SsoConfig,
  flow: Flow,
  input: CallbackInput,
): Promise<LoginResult> {
  const params = new URLSearchParams(input.search);
  const state = params.get('state');
  if (state === null || !sameSecret(state, flow.state)) throw new SsoRefusal('invalid_state', { tenant });
  const providerError = params.get('error');
  if (providerError !== null) {
    // The provider's own code (access_denied, login_required…), kept only if it looks like one.
    const code = /^[a-z_]{1,64}$/.test(providerError) ? providerError : 'unrecognised';
    throw new SsoRefusal('provider_error', { audit: `provider_error:${code}`, tenant });
  }
  const provider = await deps.providers.get(tenant.id, config).catch((error: unknown) => {
    throw new SsoRefusal('provider_error', { audit: 'discovery_failed', tenant, cause: error });
  });
  const claims = await exchangeCode(deps, provider, flow, input.search).catch((error: unknown) => {
    throw new SsoRefusal('exchange_failed', { tenant, cause: error });
  });
  const email = allowedEmail(claims, config);
  if ('refusal' in email) {
    const tried = typeof claims.email === 'string' ? claims.email.slice(0, 254) : undefined;
    throw new SsoRefusal(email.refusal, { tenant, ...(tried ? { email: tried } : {}) });
  }
  // The provider's word on an email counts only in a domain the tenant proved it holds.
  const domain = email.email.slice(email.email.indexOf('@') + 1);
  if (!(await listVerifiedDomains(deps.db, tenant.id)).some((row) => row.domain === domain))
    throw new SsoRefusal('domain_not_verified', { tenant, email: email.email });
  const role = claimedRole(claims, config);
  const name = typeof claims.name === 'string' && claims.name.trim() !== '' ? claims.name.trim().slice(0, 200) : '';
  const subject = typeof claims.sub === 'string' ? claims.sub : '';
  const user = await signedInUser(deps.db, tenant, { email: email.email, name, role, issuer: config.issuer, subject });
  return startSession(deps.db, user, { ip: input.ip, userAgent: input.userAgent, method: 'sso' });
}

/** The code exchanged for tokens; the id token's claims, completed from userinfo when it lacks the email. */
async function exchangeCode(
  deps: SsoSignInDeps,
  provider: oidc.Configuration,
  flow: Flow,
  search: string,
): Promise<Record<string, unknown>> {
  const callbackUrl = new URL(`${deps.publicUrl}${SSO_CALLBACK_PATH}${search}`);
  const tokens = await oidc.authorizationCodeGrant(provider, callbackUrl, {
    pkceCodeVerifier: flow.verifier,
    expectedState: flow.state,
    expectedNonce: flow.nonce,
    idTokenExpected: true,
  });
  const claims = tokens.claims();
  if (!claims) throw new Error('the provider returned no id token');
  if (claims.email !== undefined) return claims;
  // Some providers keep profile claims out of the id token; userinfo has them, for the same subject.
  const info = await oidc.fetchUserInfo(provider, tokens.access_token, claims.sub);
  return { ...info, ...claims };
}
