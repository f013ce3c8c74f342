// The credential an Authorization header presents, and which API token it is: a tenant's
// (api_tokens) or a partner's (partner_tokens). Both are `slt_…` values checked the same way; a
// value that is neither, or malformed, is unknown.
import type { Kysely } from 'kysely';
import type { Tables } from '../storage/schema.js';
import type { Principal } from './principal.js';
import { checkToken, tokenPrincipal } from './tokens/token-service.js';
import { checkPartnerToken } from './partners/partner-token-service.js';

/** The credential in an Authorization header: a Bearer token or a Basic password. */
export function presentedToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const [scheme, value = ''] = header.trim().split(/\s+/, 2);
  if (scheme?.toLowerCase() === 'bearer') return value;
  if (scheme?.toLowerCase() === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon === -1 ? '' : decoded.slice(colon + 1);
  }
  return '';
}

export type TokenCredential =
  | { ok: true; principal: Principal }
  | {
      ok: false;
      code: 'invalid_credentials' | 'token_expired' | 'token_revoked';
      /** When a known token expired (epoch ms). */
      expiresAt: number | null;
      /** A known token that may no longer be used: where its refusal is audited, and as what. */
      known?: { tenantId: number | null; subject: string };
    };

export async function authenticateToken(db: Kysely<Tables>, value: string, ip: string): Promise<TokenCredential> {
  const tenantToken = await checkToken(db, value, ip);
  if (tenantToken.ok) return { ok: true, principal: tokenPrincipal(tenantToken.token) };
  if (tenantToken.token) {
    const { token } = tenantToken;
    return {
      ok: false,
      code: tenantToken.code,
      expiresAt: token.expires_at,
      known: { tenantId: token.tenant_id, subject: `token ${token.id}` },
    };
  }
  const partnerToken = await checkPartnerToken(db, value, ip);
  if (partnerToken.ok) return partnerToken;
  const { code, expiresAt, id } = partnerToken;
  return { ok: false, code, expiresAt, ...(id ? { known: { tenantId: null, subject: `partner token ${id}` } } : {}) };
}
