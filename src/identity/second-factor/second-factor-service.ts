// The rules of the optional second factor: a person enrols themselves (a pending secret, then a
// first code and their password turn it on and yield recovery codes shown once), turns it off or
// regenerates the codes with their password, and an admin removes it for someone who lost their
// phone. At sign-in, a code is accepted once (its time step is remembered) and a recovery code once.
import type { Kysely } from 'kysely';
import type { Tables } from '../../storage/schema.js';
import { instanceKey } from '../../storage/instance-settings.js';
import { AppError } from '../../core/errors.js';
import { recordAudit } from '../audit/audit-service.js';
import type { AuditActor } from '../principal.js';
import { verifyPassword } from '../users/password.js';
import { findAccount, type UserRow } from '../users/user-store.js';
import {
  base32Of,
  decryptSecret,
  encryptSecret,
  matchingStep,
  newRecoveryCodes,
  newTotpSecret,
  otpauthUri,
  recoveryCodeHash,
} from './second-factor-codes.js';
import {
  claimStep,
  confirmSecondFactor,
  deleteSecondFactor,
  findSecondFactor,
  replaceRecoveryCodes,
  savePendingSecondFactor,
  useRecoveryCode,
} from './second-factor-store.js';
import { findTenantUser } from '../users/user-store.js';

/** A person acting on their own second factor. */
export interface SelfContext {
  db: Kysely<Tables>;
  tenantId: number | null;
  userId: string;
  email: string;
  actor: AuditActor;
  ip: string;
  now?: number;
}

/** The deployment's key for second-factor secrets, made on first use and read once per database handle. */
const keys = new WeakMap<Kysely<Tables>, Promise<Buffer>>();
function secretKey(db: Kysely<Tables>): Promise<Buffer> {
  let key = keys.get(db);
  if (!key) {
    key = instanceKey(db, 'second_factor_key');
    keys.set(db, key);
    // A failed read is not remembered: the next call tries again.
    key.catch(() => keys.delete(db));
  }
  return key;
}

export async function hasSecondFactor(db: Kysely<Tables>, tenantId: number | null, userId: string): Promise<boolean> {
  const row = await findSecondFactor(db, tenantId, userId);
  return row?.confirmed_at != null;
}

/** Starts enrolment: a new pending secret (replacing an unconfirmed one). Nothing is asked at sign-in yet. */
export async function startEnrolment(context: SelfContext): Promise<{ secret: string; otpauth_uri: string }> {
  const { db, tenantId, userId } = context;
  if (await hasSecondFactor(db, tenantId, userId)) {
    throw new AppError(
      'second_factor_already_enabled',
      'a second factor is already on; turn it off first to enrol another authenticator',
    );
  }
  const secret = newTotpSecret();
  const saved = await savePendingSecondFactor(db, {
    user_id: userId,
    tenant_id: tenantId,
    secret_encrypted: encryptSecret(await secretKey(db), secret),
    created_at: context.now ?? Date.now(),
    confirmed_at: null,
    last_used_step: null,
  });
  if (!saved) throw new AppError('second_factor_already_enabled', 'a second factor was turned on meanwhile');
  return { secret: base32Of(secret), otpauth_uri: otpauthUri(secret, context.email) };
}

/**
 * Confirms enrolment with a first code and the person's password (a session left open must not be
 * enough to tie the account to someone else's phone); returns the recovery codes, which are never
 * shown again.
 */
export async function confirmEnrolment(context: SelfContext, code: string, password: string): Promise<string[]> {
  await requirePassword(context, password);
  const { db, tenantId, userId } = context;
  const now = context.now ?? Date.now();
  const row = await findSecondFactor(db, tenantId, userId);
  if (!row) throw new AppError('second_factor_not_enabled', 'start the set-up first (POST /v1/me/second-factor)');
  if (row.confirmed_at !== null) throw new AppError('second_factor_already_enabled', 'the second factor is already on');
  const step = matchingStep(decryptSecret(await secretKey(db), row.secret_encrypted), code, now);
  if (step === undefined) {
    throw new AppError('invalid_request', 'the code is wrong: enter the 6 digits the authenticator app shows now', {
      extensions: { reason: 'wrong_code' },
    });
  }
  const codes = newRecoveryCodes();
  await db.transaction().execute(async (trx) => {
    if (!(await confirmSecondFactor(trx, tenantId, userId, { now, step }))) {
      throw new AppError('second_factor_already_enabled', 'the second factor is already on');
    }
    await storeRecoveryCodes(trx, context, codes, now, 'second_factor.enabled');
  });
  return codes;
}

/** The person's own password, checked before they turn on, weaken or reissue their second factor. */
async function requirePassword(context: SelfContext, password: string): Promise<void> {
  const user = await findAccount(context.db, context.tenantId, context.userId);
  if (!user || !(await verifyPassword(password, user.password_hash))) {
    throw new AppError('password_incorrect', 'the password is wrong');
  }
}

async function requireEnabled(context: SelfContext): Promise<void> {
  if (!(await hasSecondFactor(context.db, context.tenantId, context.userId))) {
    throw new AppError('second_factor_not_enabled', 'no second factor is on for this account');
  }
}

export async function disableOwnSecondFactor(context: SelfContext, password: string): Promise<void> {
  await requirePassword(context, password);
  await requireEnabled(context);
  const { db, tenantId, userId } = context;
  await db.transaction().execute(async (trx) => {
    await deleteSecondFactor(trx, tenantId, userId);
    await recordAudit(trx, {
      tenantId,
      action: 'second_factor.disabled',
      actor: context.actor,
      ip: context.ip,
      target: { type: 'user', id: userId },
    });
  });
}

export async function regenerateRecoveryCodes(context: SelfContext, password: string): Promise<string[]> {
  await requirePassword(context, password);
  await requireEnabled(context);
  const now = context.now ?? Date.now();
  const codes = newRecoveryCodes();
  await context.db.transaction().execute(async (trx) => {
    await storeRecoveryCodes(trx, context, codes, now, 'second_factor.recovery_codes_regenerated');
  });
  return codes;
}

/** Replaces the person's recovery codes with these (stored as hashes) and audits why. */
async function storeRecoveryCodes(
  trx: Kysely<Tables>,
  context: SelfContext,
  codes: readonly string[],
  now: number,
  action: 'second_factor.enabled' | 'second_factor.recovery_codes_regenerated',
): Promise<void> {
  const { tenantId, userId } = context;
  await replaceRecoveryCodes(
    trx,
    tenantId,
    userId,
    codes.map((c) => ({ code_hash: recoveryCodeHash(c), created_at: now })),
  );
  await recordAudit(trx, {
    tenantId,
    action,
    actor: context.actor,
    ip: context.ip,
    target: { type: 'user', id: userId },
  });
}

/** An admin removes a user's second factor (a lost phone). Another tenant's user is not found. */
export async function resetSecondFactor(
  db: Kysely<Tables>,
  tenantId: number | null,
  userId: string,
  by: { actor: AuditActor; ip: string | null },
): Promise<void> {
  // Operators (no tenant) are reset from the command line only.
  const user = tenantId === null ? undefined : await findTenantUser(db, tenantId, userId);
  if (tenantId !== null && !user) throw new AppError('not_found', `no user ${userId} in this tenant`);
  // Then only a person may go on: a leaked token must not open a way into someone's account.
  if (by.actor.type === 'token')
    throw new AppError('session_required', "only a signed-in admin may remove a person's second factor");
  await db.transaction().execute(async (trx) => {
    const removed = await deleteSecondFactor(trx, tenantId, userId);
    if (!removed) return;
    await recordAudit(trx, {
      tenantId,
      action: 'second_factor.disabled',
      actor: by.actor,
      ip: by.ip,
      target: { type: 'user', id: userId },
      details: { reset_by_admin: true },
    });
  });
}

export interface SecondFactorProof {
  code?: string | undefined;
  recoveryCode?: string | undefined;
}

/**
 * At sign-in, after the password proved right: passes when the account has no second factor or
 * the proof is good; otherwise audits the failure and throws (second_factor_required when no
 * proof came, invalid_second_factor_code when it was wrong, reused or already spent).
 */
export async function checkSecondFactor(
  db: Kysely<Tables>,
  user: UserRow,
  proof: SecondFactorProof,
  ip: string,
  now = Date.now(),
): Promise<void> {
  const row = await findSecondFactor(db, user.tenant_id, user.id);
  if (row?.confirmed_at == null) return;
  const fail = async (reason: string, error: AppError): Promise<never> => {
    await recordAudit(db, {
      tenantId: user.tenant_id,
      action: 'auth.login_failed',
      outcome: 'failure',
      actor: { type: 'anonymous', id: user.id, label: user.email },
      ip,
      details: { reason },
    });
    throw error;
  };
  const wrong = new AppError('invalid_second_factor_code', 'the second-factor code is wrong, or was already used');
  if (proof.recoveryCode !== undefined) {
    if (!(await useRecoveryCode(db, user.tenant_id, user.id, recoveryCodeHash(proof.recoveryCode), now))) {
      return fail('wrong_recovery_code', wrong);
    }
    await recordAudit(db, {
      tenantId: user.tenant_id,
      action: 'second_factor.recovery_code_used',
      actor: { type: 'user', id: user.id, label: user.email },
      ip,
      target: { type: 'user', id: user.id },
    });
    return;
  }
  if (proof.code === undefined) {
    return fail(
      'second_factor_required',
      new AppError('second_factor_required', 'enter the code from your authenticator app, or a recovery code'),
    );
  }
  const step = matchingStep(decryptSecret(await secretKey(db), row.secret_encrypted), proof.code, now);
  if (step === undefined) return fail('wrong_second_factor_code', wrong);
  if (!(await claimStep(db, user.tenant_id, user.id, step))) return fail('second_factor_code_reused', wrong);
}
