// The webhook events a case's history implies: every history entry is a change someone can
// subscribe to — `created` is case.created, an entry that moves the status to closed (a close,
// a merge into another case) is case.closed, anything else case.updated. case-store's
// addHistory calls this in the same transaction, so no change path can forget to emit.
import { emitEvents, type OutboundEvent } from '../webhooks/webhook-events.js';
import type { Db } from '../storage/database.js';

/** A case history entry, as case-store's addHistory writes it. */
interface HistoryEntry {
  caseId: string;
  tenantId: number;
  at: number;
  actor: { type: string; label: string };
  action: string;
  changes: Record<string, unknown>;
}

function typeOf(entry: HistoryEntry): OutboundEvent['type'] {
  if (entry.action === 'created') return 'case.created';
  if (entry.action === 'sla_breached') return 'case.sla_breached';
  const status = entry.changes.status as { to?: unknown } | undefined;
  return status?.to === 'closed' ? 'case.closed' : 'case.updated';
}

export async function emitCaseEvents(db: Db, entries: readonly HistoryEntry[]): Promise<void> {
  const byTenant = new Map<number, HistoryEntry[]>();
  for (const entry of entries) byTenant.set(entry.tenantId, [...(byTenant.get(entry.tenantId) ?? []), entry]);
  for (const [tenantId, tenantEntries] of byTenant) {
    await emitEvents(
      db,
      tenantId,
      async () => {
        const cases = new Map(
          (
            await db
              .selectFrom('cases')
              .select(['id', 'number', 'title', 'status', 'severity', 'score', 'resolution'])
              .where('tenant_id', '=', tenantId)
              .where('id', 'in', [...new Set(tenantEntries.map((entry) => entry.caseId))])
              .execute()
          ).map((row) => [row.id, row]),
        );
        return tenantEntries.map((entry) => {
          const row = cases.get(entry.caseId);
          return {
            type: typeOf(entry),
            subject: entry.caseId,
            data: {
              case: row
                ? {
                    id: row.id,
                    number: row.number,
                    title: row.title,
                    status: row.status,
                    severity: row.severity,
                    score: row.score,
                    resolution: row.resolution,
                    href: `/v1/cases/${row.id}`,
                  }
                : { id: entry.caseId, href: `/v1/cases/${entry.caseId}` },
              change: { action: entry.action, changes: entry.changes },
              actor: { type: entry.actor.type, label: entry.actor.label },
            },
          };
        });
      },
      entries[0]?.at,
    );
  }
}
