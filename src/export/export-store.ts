// The export's progress per destination (export_cursors): the hour under way and the last tenant
// whose files for it are written.
import type { Db } from '../storage/database.js';

export interface ExportCursor {
  hour: number;
  afterTenantId: number;
}

/** The destination's cursor, created at `startHour` the first time the destination is seen. */
export async function openCursor(db: Db, destination: string, startHour: number, now: number): Promise<ExportCursor> {
  await db
    .insertInto('export_cursors')
    .values({
      destination,
      hour: startHour,
      after_tenant_id: 0,
      exported_records: 0,
      exported_findings: 0,
      updated_at: now,
    })
    .onConflict((oc) => oc.column('destination').doNothing())
    .execute();
  const row = await db
    .selectFrom('export_cursors')
    .select(['hour', 'after_tenant_id'])
    .where('destination', '=', destination)
    .executeTakeFirstOrThrow();
  return { hour: row.hour, afterTenantId: row.after_tenant_id };
}

/** A tenant's files for the hour are written: the next pass starts after it. */
export async function tenantDone(
  db: Db,
  destination: string,
  cursor: ExportCursor,
  written: { records: number; findings: number },
  now: number,
): Promise<void> {
  await db
    .updateTable('export_cursors')
    .set((eb) => ({
      after_tenant_id: cursor.afterTenantId,
      exported_records: eb('exported_records', '+', written.records),
      exported_findings: eb('exported_findings', '+', written.findings),
      updated_at: now,
    }))
    .where('destination', '=', destination)
    .where('hour', '=', cursor.hour)
    .execute();
}

/** Every tenant's files for the hour are written: the cursor moves to the next hour. */
export async function hourDone(db: Db, destination: string, hour: number, next: number, now: number): Promise<void> {
  await db
    .updateTable('export_cursors')
    .set({ hour: next, after_tenant_id: 0, updated_at: now })
    .where('destination', '=', destination)
    .where('hour', '=', hour)
    .execute();
}

export interface ExportProgress {
  destination: string;
  hour: number;
  afterTenantId: number;
  exportedRecords: number;
  exportedFindings: number;
  updatedAt: number;
}

export async function exportProgress(db: Db, destination: string): Promise<ExportProgress | undefined> {
  const row = await db
    .selectFrom('export_cursors')
    .selectAll()
    .where('destination', '=', destination)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    destination,
    hour: row.hour,
    afterTenantId: row.after_tenant_id,
    exportedRecords: row.exported_records,
    exportedFindings: row.exported_findings,
    updatedAt: row.updated_at,
  };
}
