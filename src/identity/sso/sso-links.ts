// Links between a provider's subject and a person. Single sign-on signs a person in only through
// their link: made when single sign-on created them, made at once for a person with no other way
// in (no usable password, no second factor), and otherwise confirmed by the person: their first
// single sign-on opens no session but leaves a pending link (a sealed cookie for ten minutes);
// they sign in with their password (and second factor) and confirm it with
// POST /v1/account/sso-link. A link holds for one issuer and subject: a tenant admin who points
// single sign-on at another provider cannot sign in as people who have a password of their own.
import type { Kysely } from 'kysely';
import type { Tables } from '../../storage/schema.js';
import { AppError } from '../../core/errors.js';
import { sha256 } from '../../core/secrets.js';
import { recordAudit } from '../audit/audit-service.js';
import type { AuditActor } from '../principal.js';
import { findSessionWithUser } from '../sessions/session-store.js';
import type { TenantRow } from '../tenants/tenant-store.js';
import type { UserRow } from '../users/user-store.js';
import { hasSecondFactor } from '../second-factor/second-factor-service.js';
import { ssoSealer } from './sso-seal.js';
import { deleteSsoLink, findSsoConfig, findSsoLink, saveSsoLink, type SsoLinkRow } from './sso-store.js';

export const SSO_LINK_COOKIE = 'sightline_sso_link';
/** The pending link goes only to the route that confirms it. */
export const SSO_LINK_COOKIE_PATH = '/v1/account/sso-link';
export const SSO_LINK_TTL_MS = 10 * 60_000;
const LINK_CONTEXT = 'sso pending link';

/** The password hash of people single sign-on created: no password opens it. */
export const SSO_ONLY_PASSWORD = '!sso';

/** Who the provider says the person is. */
export interface ProviderIdentity {
  issuer: string;
  subject: string;
}

interface PendingLink extends ProviderIdentity {
  tenantId: number;
  userId: string;
  email: string;
  issuedAt: number;
  expiresAt: number;
}

/** Whether the person can sign in without the provider: a usable password, or a second factor. */
async function hasOtherWayIn(db: Kysely<Tables>, user: UserRow & { tenant_id: number }): Promise<boolean> {
  return user.password_hash.startsWith('scrypt$') || (await hasSecondFactor(db, user.tenant_id, user.id));
}

export type LinkCheck = { linked: true } | { linked: false; cookie: string };

/**
 * Whether the provider may sign this member in: yes through a link of this issuer and subject
 * (a link kept from before subjects were recorded takes the subject now), yes at once for a
 * person with no other way in (the link is made and audited); otherwise not yet, with the
 * sealed pending link for the browser.
 */
export async function checkLink(
  db: Kysely<Tables>,
  tenant: TenantRow,
  user: UserRow & { tenant_id: number },
  identity: ProviderIdentity,
): Promise<LinkCheck> {
  const link = await findSsoLink(db, tenant.id, user.id);
  if (link?.issuer === identity.issuer && (link.subject === null || link.subject === identity.subject)) {
    if (link.subject === null) await saveSsoLink(db, { ...link, subject: identity.subject });
    return { linked: true };
  }
  if (await hasOtherWayIn(db, user)) {
    const now = Date.now();
    const pending: PendingLink = {
      ...identity,
      tenantId: tenant.id,
      userId: user.id,
      email: user.email,
      issuedAt: now,
      expiresAt: now + SSO_LINK_TTL_MS,
    };
    return { linked: false, cookie: (await ssoSealer(db)).seal(JSON.stringify(pending), LINK_CONTEXT) };
  }
  const actor = { type: 'system', id: null, label: 'single sign-on' } as const;
  await db.transaction().execute(async (trx) => {
    await saveSsoLink(trx, newLink(tenant.id, user.id, identity, 'no_password'));
    await auditLink(trx, tenant.id, user, actor, { issuer: identity.issuer, how: 'no_password' });
  });
  return { linked: true };
}

export function newLink(tenantId: number, userId: string, identity: ProviderIdentity, how: string): SsoLinkRow {
  return {
    user_id: userId,
    tenant_id: tenantId,
    issuer: identity.issuer,
    subject: identity.subject,
    linked_at: Date.now(),
    how,
  };
}

function auditLink(
  db: Kysely<Tables>,
  tenantId: number,
  user: UserRow,
  actor: AuditActor,
  details: Record<string, unknown>,
  ip: string | null = null,
) {
  return recordAudit(db, {
    tenantId,
    action: 'sso.linked',
    actor,
    ip,
    target: { type: 'user', id: user.id },
    details: { email: user.email, ...details },
  });
}

/** The signed-in person, as the account routes know them. */
export interface LinkPerson {
  db: Kysely<Tables>;
  tenantId: number;
  userId: string;
  actor: AuditActor;
  ip: string;
  /** The session cookie this request came with. */
  sessionCookie: string | undefined;
  /** The pending link cookie, when the browser has one. */
  pendingCookie: string | undefined;
}

async function openPending(person: LinkPerson): Promise<PendingLink | undefined> {
  if (person.pendingCookie === undefined) return undefined;
  const text = (await ssoSealer(person.db)).open(person.pendingCookie, LINK_CONTEXT);
  if (text === undefined) return undefined;
  const pending = JSON.parse(text) as PendingLink;
  const mine = pending.tenantId === person.tenantId && pending.userId === person.userId;
  return mine && pending.expiresAt > Date.now() ? pending : undefined;
}

export interface LinkState {
  linked: { issuer: string; linked_at: string; how: string } | null;
  pending: { issuer: string; email: string; expires_at: string } | null;
}

/** The person's link and the link waiting for their confirmation in this browser, if any. */
export async function readLinkState(person: LinkPerson): Promise<LinkState> {
  const link = await findSsoLink(person.db, person.tenantId, person.userId);
  const pending = await openPending(person);
  return {
    linked: link ? { issuer: link.issuer, linked_at: new Date(link.linked_at).toISOString(), how: link.how } : null,
    pending: pending
      ? { issuer: pending.issuer, email: pending.email, expires_at: new Date(pending.expiresAt).toISOString() }
      : null,
  };
}

/**
 * Confirms the pending link: the person signed in the old way after single sign-on asked for
 * the link (their session is younger than it), and the tenant still uses that issuer.
 */
export async function confirmLink(person: LinkPerson): Promise<LinkState> {
  const { db } = person;
  const pending = await openPending(person);
  const config = await findSsoConfig(db, person.tenantId);
  if (!pending || config?.issuer !== pending.issuer)
    throw new AppError('sso_link_not_pending', 'no single sign-on link is waiting for your confirmation here');
  const found =
    person.sessionCookie === undefined ? undefined : await findSessionWithUser(db, sha256(person.sessionCookie));
  if (found?.session.user_id !== person.userId || found.session.created_at < pending.issuedAt)
    throw new AppError(
      'sso_link_needs_sign_in',
      'sign out, then sign in with your password (and second factor) to confirm the link: this sign-in began before single sign-on asked for it',
    );
  await db.transaction().execute(async (trx) => {
    await saveSsoLink(trx, newLink(person.tenantId, person.userId, pending, 'confirmed'));
    await auditLink(
      trx,
      person.tenantId,
      found.user,
      person.actor,
      { issuer: pending.issuer, how: 'confirmed' },
      person.ip,
    );
  });
  return readLinkState({ ...person, pendingCookie: undefined });
}

/**
 * Removes the person's link, if any: single sign-on stops signing them in (someone with no
 * password of their own is linked again at their next single sign-on, their only way in).
 */
export async function removeLink(person: LinkPerson): Promise<void> {
  const { db } = person;
  await db.transaction().execute(async (trx) => {
    const link = await findSsoLink(trx, person.tenantId, person.userId);
    if (!link || !(await deleteSsoLink(trx, person.tenantId, person.userId))) return;
    await recordAudit(trx, {
      tenantId: person.tenantId,
      action: 'sso.unlinked',
      actor: person.actor,
      ip: person.ip,
      target: { type: 'user', id: person.userId },
      details: { issuer: link.issuer },
    });
  });
}
