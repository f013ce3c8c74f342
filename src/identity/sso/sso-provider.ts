// The tenant's OpenID Connect provider, as openid-client sees it: the issuer URL checked,
// discovery run (its answer cached a few minutes per tenant), the client authentication chosen
// from what the provider offers. Every request to the provider (discovery, token exchange,
// keys, userinfo) goes through the server's outbound address policy, the one webhooks use:
// https to public addresses, plain http only to loopback when the operator allows loopback,
// private and other internal ranges only when the operator allow-listed them. A failed
// discovery answers the tenant one generic problem whatever went wrong, so that discovery
// cannot be used to probe the network; the reason goes to the server log.
import * as oidc from 'openid-client';
import { AppError, errorMessage } from '../../core/errors.js';
import { sha256 } from '../../core/secrets.js';
import type { OutboundPolicy, Resolver } from '../../http/outbound-address.js';
import { pinnedFetch } from '../../http/outbound-fetch.js';

const DISCOVERY_TTL_MS = 5 * 60_000;
/** Seconds any request to the provider may take (discovery, token exchange, keys). */
const DISCOVERY_TIMEOUT_S = 10;

/** The one detail every failed discovery answers, whatever the reason. */
export const DISCOVERY_FAILED_DETAIL =
  'OpenID Connect discovery at the issuer failed. The issuer must be an https URL on a public address whose /.well-known/openid-configuration answers with the metadata of a provider offering the authorization code flow with PKCE (S256); the server log says what went wrong.';

/** How this deployment reaches providers: the outbound address policy, and a resolver for tests. */
export interface ProviderAccess {
  policy: OutboundPolicy;
  resolve?: Resolver;
}

/**
 * A discovery that failed: the tenant sees the generic problem (sso_discovery_failed, 422), the
 * operator's log the `reason`.
 */
export class DiscoveryFailed extends AppError {
  constructor(readonly reason: string) {
    super('sso_discovery_failed', DISCOVERY_FAILED_DETAIL, { extensions: { field: 'issuer' } });
  }
}

/** The issuer as a URL: absolute, no query, fragment or credentials (where it may point is discovery's business). */
export function issuerUrl(issuer: string): URL {
  const refuse = (why: string) =>
    new AppError('invalid_request', `issuer ${JSON.stringify(issuer)} ${why}`, { extensions: { field: 'issuer' } });
  if (!URL.canParse(issuer)) throw refuse('is not a URL');
  const url = new URL(issuer);
  if (url.search || url.hash || url.username || url.password)
    throw refuse('must not carry a query, fragment or credentials');
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse('must be an https URL');
  return url;
}

const reasonOf = (error: unknown) =>
  `${errorMessage(error)}${error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : ''}`;

/** Discovery against the issuer, with the client's id and secret; a DiscoveryFailed otherwise. */
export async function discoverProvider(issuer: string, clientId: string, clientSecret: string, access: ProviderAccess) {
  const url = issuerUrl(issuer);
  const fetch = pinnedFetch(access);
  // Plain http passes the policy only to loopback, and only when the operator allows loopback.
  const insecure = url.protocol === 'http:';
  let discovered: oidc.Configuration;
  try {
    discovered = await oidc.discovery(url, clientId, clientSecret, undefined, {
      timeout: DISCOVERY_TIMEOUT_S,
      [oidc.customFetch]: fetch,
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- loopback only, as the policy allows
      ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
    });
  } catch (error) {
    throw new DiscoveryFailed(`discovery at ${url.href} failed: ${reasonOf(error)}`);
  }
  const metadata = discovered.serverMetadata();
  const missing = (['authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const).filter((key) => !metadata[key]);
  const s256 = metadata.code_challenge_methods_supported;
  const problem =
    missing.length > 0
      ? `its metadata lacks ${missing.join(', ')}`
      : metadata.response_types_supported?.includes('code') === false
        ? 'it does not offer the authorization code flow'
        : s256 !== undefined && !s256.includes('S256')
          ? 'it does not offer PKCE with S256'
          : undefined;
  if (problem) throw new DiscoveryFailed(`the provider at ${url.href} cannot be used: ${problem}`);
  // client_secret_basic is OpenID Connect's default; post only when the provider offers nothing else.
  const methods = metadata.token_endpoint_auth_methods_supported;
  const auth =
    methods === undefined || methods.includes('client_secret_basic')
      ? oidc.ClientSecretBasic(clientSecret)
      : oidc.ClientSecretPost(clientSecret);
  const configuration = new oidc.Configuration(metadata, clientId, clientSecret, auth);
  configuration.timeout = DISCOVERY_TIMEOUT_S;
  configuration[oidc.customFetch] = fetch;
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- loopback http only, as above
  if (insecure) oidc.allowInsecureRequests(configuration);
  return configuration;
}

/** Discovery answers per tenant, reused for a few minutes and dropped when the settings change. */
export class ProviderCache {
  private readonly entries = new Map<number, { key: string; at: number; configuration: Promise<oidc.Configuration> }>();

  constructor(readonly access: ProviderAccess) {}

  get(
    tenantId: number,
    settings: { issuer: string; clientId: string; clientSecret: string },
    now = Date.now(),
  ): Promise<oidc.Configuration> {
    const key = sha256(`${settings.issuer}\0${settings.clientId}\0${settings.clientSecret}`);
    const entry = this.entries.get(tenantId);
    if (entry?.key === key && now - entry.at < DISCOVERY_TTL_MS) return entry.configuration;
    const configuration = discoverProvider(settings.issuer, settings.clientId, settings.clientSecret, this.access);
    this.entries.set(tenantId, { key, at: now, configuration });
    // A failed discovery is not kept: the next sign-in tries again.
    configuration.catch(() => {
      if (this.entries.get(tenantId)?.configuration === configuration) this.entries.delete(tenantId);
    });
    return configuration;
  }

  forget(tenantId: number): void {
    this.entries.delete(tenantId);
  }
}
