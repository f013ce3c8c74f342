// Finds the cases whose SLA clocks ran out and marks each clock once, with a history entry, which
// sends `case.sla_breached` to webhooks and lets the case search filter on breaches. Any number of
// processes may run it: a clock is marked by whichever update finds it still unmarked.
import { sql } from 'kysely';
import { BackgroundLoop } from '../../core/background-loop.js';
import { writeTransaction } from '../../storage/write-transaction.js';
import { addHistory, type Db } from '../case-store.js';

/** Cases looked at per clock and tenant in one pass. */
const BATCH = 500;
const watcherActor = { type: 'system', id: null, label: 'SLA' } as const;

type Clock = 'acknowledge' | 'resolve';

interface Due {
  id: string;
  due: number;
}

/** The tenant's cases whose `clock` ran out before `now` and is not yet marked. */
async function overdue(db: Db, tenantId: number, clock: Clock, now: number): Promise<Due[]> {
  const query = db
    .selectFrom('cases as c')
    .innerJoin('sla_policies as p', (join) =>
      join.onRef('p.tenant_id', '=', 'c.tenant_id').onRef('p.severity', '=', 'c.severity'),
    )
    .where('c.tenant_id', '=', tenantId)
    .limit(BATCH);
  const rows =
    clock === 'acknowledge'
      ? await query
          .select(['c.id', sql<number>`c.created_at + p.acknowledge_s * 1000`.as('due')])
          .where('c.status', '=', 'new')
          .where('c.acknowledge_breached_at', 'is', null)
          .where(sql<boolean>`c.created_at + p.acknowledge_s * 1000 < ${now}`)
          .execute()
      : await query
          .select(['c.id', sql<number>`c.created_at + p.resolve_s * 1000 + c.held_ms`.as('due')])
          .where('c.status', 'in', ['new', 'in_progress'])
          .where('c.resolve_breached_at', 'is', null)
          .where(sql<boolean>`c.created_at + p.resolve_s * 1000 + c.held_ms < ${now}`)
          .execute();
  return rows.map((row) => ({ id: row.id, due: row.due }));
}

async function mark(db: Db, tenantId: number, clock: Clock, due: Due, now: number): Promise<boolean> {
  const column = clock === 'acknowledge' ? 'acknowledge_breached_at' : 'resolve_breached_at';
  return writeTransaction(db, async (trx) => {
    const result = await trx
      .updateTable('cases')
      .set({ [column]: now })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', due.id)
      .where(column, 'is', null)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return false;
    await addHistory(trx, [
      {
        caseId: due.id,
        tenantId,
        at: now,
        actor: watcherActor,
        action: 'sla_breached',
        changes: { clock, due_at: new Date(due.due).toISOString() },
      },
    ]);
    return true;
  });
}

/** One pass over every tenant with a policy; the number of clocks marked. */
export async function markBreaches(db: Db, now: number): Promise<number> {
  const tenants = await db.selectFrom('sla_policies').select('tenant_id').distinct().execute();
  let marked = 0;
  for (const { tenant_id: tenantId } of tenants)
    for (const clock of ['acknowledge', 'resolve'] as const)
      for (const due of await overdue(db, tenantId, clock, now))
        if (await mark(db, tenantId, clock, due, now)) marked++;
  return marked;
}

export function slaWatcher(db: Db, intervalMs: number, onError: (error: unknown) => void): BackgroundLoop {
  return new BackgroundLoop({
    run: async () => {
      await markBreaches(db, Date.now());
      return undefined;
    },
    idleMs: intervalMs,
    backoff: { baseMs: intervalMs, maxMs: 10 * intervalMs },
    onError,
  });
}
