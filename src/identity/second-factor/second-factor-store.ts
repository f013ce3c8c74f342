// SQL for the second factor: the per-user TOTP row and the recovery codes. Every read and write
// names the user's tenant (null for platform operators, who belong to none) besides the user.
import type { Kysely, Selectable } from 'kysely';
import type { RecoveryCodesTable, SecondFactorsTable, Tables } from '../../storage/schema.js';

export type SecondFactorRow = Selectable<SecondFactorsTable>;

/** `is null` for operators (no tenant), `=` for tenant members. */
const tenantOp = (tenantId: number | null) => (tenantId === null ? 'is' : '=');

export function findSecondFactor(
  db: Kysely<Tables>,
  tenantId: number | null,
  userId: string,
): Promise<SecondFactorRow | undefined> {
  return db
    .selectFrom('second_factors')
    .selectAll()
    .where('tenant_id', tenantOp(tenantId), tenantId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

/**
 * Starts (or restarts) an enrolment: the pending secret replaces any earlier pending one, never a
 * confirmed one (a confirmation racing this call wins). False when a confirmed one is in place.
 */
export async function savePendingSecondFactor(db: Kysely<Tables>, row: SecondFactorRow): Promise<boolean> {
  const saved = await db
    .insertInto('second_factors')
    .values(row)
    .onConflict((oc) =>
      oc
        .column('user_id')
        .doUpdateSet({
          secret_encrypted: row.secret_encrypted,
          created_at: row.created_at,
          confirmed_at: null,
          last_used_step: null,
        })
        .where('second_factors.confirmed_at', 'is', null),
    )
    .returning('user_id')
    .executeTakeFirst();
  return saved !== undefined;
}

/** Confirms a pending enrolment; false when there was none (or it was confirmed meanwhile). */
export async function confirmSecondFactor(
  db: Kysely<Tables>,
  tenantId: number | null,
  userId: string,
  at: { now: number; step: number },
): Promise<boolean> {
  const result = await db
    .updateTable('second_factors')
    .set({ confirmed_at: at.now, last_used_step: at.step })
    .where('tenant_id', tenantOp(tenantId), tenantId)
    .where('user_id', '=', userId)
    .where('confirmed_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Takes a code's time step for the user, once: false when a code of this step or a later one was
 * already accepted (a replay, or two sign-ins racing with one code).
 */
export async function claimStep(
  db: Kysely<Tables>,
  tenantId: number | null,
  userId: string,
  step: number,
): Promise<boolean> {
  const result = await db
    .updateTable('second_factors')
    .set({ last_used_step: step })
    .where('tenant_id', tenantOp(tenantId), tenantId)
    .where('user_id', '=', userId)
    .where('confirmed_at', 'is not', null)
    .where((eb) => eb.or([eb('last_used_step', 'is', null), eb('last_used_step', '<', step)]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Removes the second factor and its recovery codes; true when there was one. */
export async function deleteSecondFactor(
  db: Kysely<Tables>,
  tenantId: number | null,
  userId: string,
): Promise<boolean> {
  await db
    .deleteFrom('recovery_codes')
    .where('tenant_id', tenantOp(tenantId), tenantId)
    .where('user_id', '=', userId)
    .execute();
  const result = await db
    .deleteFrom('second_factors')
    .where('tenant_id', tenantOp(tenantId), tenantId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Replaces the user's recovery codes with these (hashes). */
export async function replaceRecoveryCodes(
  db: Kysely<Tables>,
  tenantId: number | null,
  userId: string,
  codes: Pick<Selectable<RecoveryCodesTable>, 'code_hash' | 'created_at'>[],
): Promise<void> {
  await db
    .deleteFrom('recovery_codes')
    .where('tenant_id', tenantOp(tenantId), tenantId)
    .where('user_id', '=', userId)
    .execute();
  await db
    .insertInto('recovery_codes')
    .values(codes.map((code) => ({ ...code, user_id: userId, tenant_id: tenantId, used_at: null })))
    .execute();
}

/** Marks an unused recovery code used; false when the user has no such unused code. */
export async function useRecoveryCode(
  db: Kysely<Tables>,
  tenantId: number | null,
  userId: string,
  codeHash: string,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('recovery_codes')
    .set({ used_at: now })
    .where('tenant_id', tenantOp(tenantId), tenantId)
    .where('user_id', '=', userId)
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
