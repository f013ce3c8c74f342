// The tenant's OpenID Connect provider, as openid-client sees it: the issuer URL checked,
// discovery run (its answer cached a few minutes per tenant), the client authentication chosen
// from what the provider offers. Issuers must be https; plain http is accepted only on a
// loopback address (a provider on the same machine, as in tests), never across a network.
import { isIP } from 'node:net';
import * as oidc from 'openid-client';
import { AppError, errorMessage } from '../../core/errors.js';
import { sha256 } from '../../core/secrets.js';

const DISCOVERY_TTL_MS = 5 * 60_000;
/** Seconds any request to the provider may take (discovery, token exchange, keys). */
const DISCOVERY_TIMEOUT_S = 10;

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/** The issuer as a URL: https, or http on a loopback address; no query, fragment or credentials. */
export function issuerUrl(issuer: string): URL {
  const refuse = (why: string) =>
    new AppError('invalid_request', `issuer ${JSON.stringify(issuer)} ${why}`, { extensions: { field: 'issuer' } });
  if (!URL.canParse(issuer)) throw refuse('is not a URL');
  const url = new URL(issuer);
  if (url.search || url.hash || url.username || url.password)
    throw refuse('must not carry a query, fragment or credentials');
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return url;
  throw refuse('must use https (plain http is accepted only on a loopback address)');
}

/** Discovery against the issuer, with the client's id and secret. Failures are 422 with the reason. */
export async function discoverProvider(issuer: string, clientId: string, clientSecret: string) {
  const url = issuerUrl(issuer);
  const insecure = url.protocol === 'http:';
  let discovered: oidc.Configuration;
  try {
    discovered = await oidc.discovery(url, clientId, clientSecret, undefined, {
      timeout: DISCOVERY_TIMEOUT_S,
      // Loopback only (issuerUrl): the deprecation marks the option as not for production networks.
      // eslint-disable-next-line @typescript-eslint/no-deprecated
      ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
    });
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
    throw new AppError(
      'sso_discovery_failed',
      `OpenID Connect discovery at ${url.href} failed: ${errorMessage(error)}${cause}`,
      { extensions: { field: 'issuer' }, cause: error },
    );
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
  if (problem) throw new AppError('sso_discovery_failed', `the provider at ${url.href} cannot be used: ${problem}`);
  // client_secret_basic is OpenID Connect's default; post only when the provider offers nothing else.
  const methods = metadata.token_endpoint_auth_methods_supported;
  const auth =
    methods === undefined || methods.includes('client_secret_basic')
      ? oidc.ClientSecretBasic(clientSecret)
      : oidc.ClientSecretPost(clientSecret);
  const configuration = new oidc.Configuration(metadata, clientId, clientSecret, auth);
  configuration.timeout = DISCOVERY_TIMEOUT_S;
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- loopback http only, as above
  if (insecure) oidc.allowInsecureRequests(configuration);
  return configuration;
}

/** Discovery answers per tenant, reused for a few minutes and dropped when the settings change. */
export class ProviderCache {
  private readonly entries = new Map<number, { key: string; at: number; configuration: Promise<oidc.Configuration> }>();

  get(
    tenantId: number,
    settings: { issuer: string; clientId: string; clientSecret: string },
    now = Date.now(),
  ): Promise<oidc.Configuration> {
    const key = sha256(`${settings.issuer}\0${settings.clientId}\0${settings.clientSecret}`);
    const entry = this.entries.get(tenantId);
    if (entry?.key === key && now - entry.at < DISCOVERY_TTL_MS) return entry.configuration;
    const configuration = discoverProvider(settings.issuer, settings.clientId, settings.clientSecret);
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
