// Recomputes cases' generated fields after something other than a new observation changed what
// they are made of (a device's criticality, a merge), with one history entry per changed case.
import type { AuditActor } from '../identity/principal.js';
import { findDevicesByIds } from '../devices/device-store.js';
import { caseScore } from './case-score.js';
import { addHistory, caseDeviceIds, findCasesByIds, updateCase, type Db } from './case-store.js';

/** Rescores open cases (only the score depends on devices); records the change where it moved. */
export async function rescoreCases(
  db: Db,
  tenantId: number,
  caseIds: readonly string[],
  actor: AuditActor,
  now: number,
  reason: Record<string, unknown>,
): Promise<void> {
  const devicesByCase = await caseDeviceIds(db, tenantId, caseIds);
  for (const caseId of caseIds) {
    const devices = await findDevicesByIds(db, tenantId, devicesByCase.get(caseId) ?? []);
    // A concurrent edit (PostgreSQL) moves the version: read again and retry.
    for (let attempt = 0; ; attempt++) {
      const [row] = await findCasesByIds(db, tenantId, [caseId]);
      if (!row) break;
      const score = caseScore({
        maxLevel: row.max_level,
        observationCount: row.observation_count,
        tactics: (JSON.parse(row.tactics) as string[]).length,
        criticalities: devices.map((device) => device.criticality),
      });
      if (score === row.score) break;
      if (await updateCase(db, tenantId, row.id, row.version, { score, updated_at: now })) {
        await addHistory(db, [
          {
            caseId: row.id,
            tenantId,
            at: now,
            actor,
            action: 'rescored',
            changes: { score: { from: row.score, to: score }, ...reason },
          },
        ]);
        break;
      }
      if (attempt >= 5) throw new Error(`case ${row.id} kept changing during rescoring`);
    }
  }
}
