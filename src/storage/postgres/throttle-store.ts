// SQL for the failed-attempt limits that API nodes share on PostgreSQL (throttles.ts):
// failures per client address and each account's run of failed sign-ins. Neither belongs to a
// tenant: a sign-in is counted before anyone knows which tenant it is for.
import { sql } from 'kysely';
import type { Db } from '../database.js';
import type { Run } from '../../identity/throttling/account-throttle.js';

/**
 * Holds a lock on `key` until the transaction ends, across every node on the database, so that
 * one node's check-and-count cannot interleave with another's for the same address or account.
 */
export async function lockThrottleKey(trx: Db, key: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
}

/** The unit's failure times within the window, oldest first (the newest `max` at most). */
export async function recentFailures(db: Db, clientKey: string, since: number, max: number): Promise<number[]> {
  const rows = await db
    .selectFrom('auth_failures')
    .select('at')
    .where('client_key', '=', clientKey)
    .where('at', '>', since)
    .orderBy('at', 'desc')
    .limit(max)
    .execute();
  return rows.map((row) => row.at).reverse();
}

export async function insertFailure(db: Db, clientKey: string, at: number): Promise<number> {
  const row = await db
    .insertInto('auth_failures')
    .values({ client_key: clientKey, at })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function deleteFailure(db: Db, id: number): Promise<void> {
  await db.deleteFrom('auth_failures').where('id', '=', id).execute();
}

/** Forgets failures that left the window (of every address). */
export async function purgeFailures(db: Db, before: number): Promise<void> {
  await db.deleteFrom('auth_failures').where('at', '<=', before).execute();
}

export async function readRun(db: Db, accountKey: string): Promise<Run | undefined> {
  const row = await db
    .selectFrom('account_throttle')
    .select(['failures', 'last_at', 'awaiting_code'])
    .where('account_key', '=', accountKey)
    .executeTakeFirst();
  return row && { failures: row.failures, last: row.last_at, awaitingCode: row.awaiting_code };
}

export async function saveRun(db: Db, accountKey: string, run: Run): Promise<void> {
  const values = { failures: run.failures, last_at: run.last, awaiting_code: run.awaitingCode };
  await db
    .insertInto('account_throttle')
    .values({ account_key: accountKey, ...values })
    .onConflict((oc) => oc.column('account_key').doUpdateSet(values))
    .execute();
}

export async function noteAwaitingCode(db: Db, accountKey: string): Promise<void> {
  await db
    .updateTable('account_throttle')
    .set((eb) => ({ awaiting_code: eb('awaiting_code', '+', 1) }))
    .where('account_key', '=', accountKey)
    .execute();
}

export async function deleteRun(db: Db, accountKey: string): Promise<void> {
  await db.deleteFrom('account_throttle').where('account_key', '=', accountKey).execute();
}

/** Forgets runs whose last failure is older than `before`. */
export async function purgeRuns(db: Db, before: number): Promise<void> {
  await db.deleteFrom('account_throttle').where('last_at', '<', before).execute();
}
