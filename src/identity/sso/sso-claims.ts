// What the provider's claims say about a person, judged against the tenant's settings: a
// verified email that is an email address as invitations take them (one `@`, no spaces) and no
// look-alike (no part of it mixing scripts, no invisible or compatibility characters), in an
// allowed domain, and the role its role claim maps to. Pure functions, so the rules read in one
// place; whether the domain is verified is the sign-in's question (it needs the database).
import { isEmail } from '../../config/config.js';
import type { SsoConfig, TenantRole } from './sso-service.js';

export type ClaimRefusal = 'email_not_verified' | 'invalid_email' | 'domain_not_allowed';

/** Most privileged first: when several claim values map, the person gets the highest role. */
const rank: readonly TenantRole[] = ['admin', 'analyst', 'viewer'];

const SCRIPTS = [
  'Latin',
  'Cyrillic',
  'Greek',
  'Armenian',
  'Georgian',
  'Hebrew',
  'Arabic',
  'Devanagari',
  'Bengali',
  'Tamil',
  'Thai',
  'Han',
  'Hiragana',
  'Katakana',
  'Hangul',
  'Bopomofo',
].map((name) => ({ name, pattern: new RegExp(`\\p{Script=${name}}`, 'u') }));

/** Scripts that are written together; any other mix within one part of an address is a look-alike. */
const WRITTEN_TOGETHER = [
  ['Latin', 'Han', 'Hiragana', 'Katakana'],
  ['Latin', 'Han', 'Bopomofo'],
  ['Latin', 'Han', 'Hangul'],
];

function scriptsOf(part: string): Set<string> {
  const scripts = new Set<string>();
  for (const char of part) {
    if (!/\p{L}/u.test(char)) continue;
    scripts.add(SCRIPTS.find((script) => script.pattern.test(char))?.name ?? 'other');
  }
  return scripts;
}

/** One script per part (the local part, each label of the domain), or scripts written together. */
function singleScript(part: string): boolean {
  const scripts = [...scriptsOf(part)];
  if (scripts.length <= 1) return true;
  return WRITTEN_TOGETHER.some((set) => scripts.every((script) => set.includes(script)));
}

/** An email address single sign-on may provision or sign in: see the file's header. */
export function isAcceptableEmail(email: string): boolean {
  if (!isEmail(email)) return false;
  // Fullwidth letters, ligatures and the like become other text once normalised.
  if (email.normalize('NFKC') !== email) return false;
  // Invisible characters (zero-width joiners, direction marks) and controls.
  if (/[\p{Cf}\p{Cc}\p{Z}]/u.test(email)) return false;
  const at = email.indexOf('@');
  return [email.slice(0, at), ...email.slice(at + 1).split('.')].every(singleScript);
}

/** The verified, allowed email of the claims (lower-cased), or why there is none. */
export function allowedEmail(
  claims: Record<string, unknown>,
  config: Pick<SsoConfig, 'domains'>,
): { email: string } | { refusal: ClaimRefusal } {
  const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : '';
  // Some providers send the boolean as a string; anything else is not a verification.
  const verified = claims.email_verified === true || claims.email_verified === 'true';
  if (email === '' || !verified) return { refusal: 'email_not_verified' };
  if (!isAcceptableEmail(email)) return { refusal: 'invalid_email' };
  const domain = email.slice(email.indexOf('@') + 1);
  // The domain itself, not its subdomains: each allowed domain is named.
  if (!config.domains.includes(domain)) return { refusal: 'domain_not_allowed' };
  return { email };
}

/**
 * The role the claims map to: `mapped` when a claim value names one (the highest if several
 * do), else the default role, else none.
 */
export function claimedRole(
  claims: Record<string, unknown>,
  config: Pick<SsoConfig, 'roleClaim' | 'mapping' | 'defaultRole'>,
): { role: TenantRole; mapped: boolean } | undefined {
  const claim = claims[config.roleClaim];
  const values = (Array.isArray(claim) ? claim : [claim]).filter((value): value is string => typeof value === 'string');
  const mapped = values.flatMap((value) => (Object.hasOwn(config.mapping, value) ? [config.mapping[value]] : []));
  const best = rank.find((role) => mapped.includes(role));
  if (best) return { role: best, mapped: true };
  return config.defaultRole ? { role: config.defaultRole, mapped: false } : undefined;
}
