// Partner organisations (managed security providers): a platform operator creates one with the
// tenants it serves, and adds or removes tenants later. Each change of a tenant's partners is
// recorded in that tenant's audit log, so its admins see who was given access and when.
import type { Kysely } from 'kysely';
import type { Tables } from '../../storage/schema.js';
import { AppError } from '../../core/errors.js';
import { codeNameRule, isValidCodeName } from '../../core/code-name.js';
import { newId } from '../../core/ids.js';
import { recordAudit } from '../audit/audit-service.js';
import type { AuditActor } from '../principal.js';
import { requireTenantByCodeName } from '../tenants/tenant-service.js';
import type { TenantRow } from '../tenants/tenant-store.js';
import {
  deletePartnerTenant,
  findPartnerByCodeName,
  insertPartner,
  insertPartnerTenant,
  listPartnerRows,
  partnerTenantRows,
  type PartnerRow,
} from './partner-store.js';

export const MAX_PARTNER_NAME_LENGTH = 200;

/** A partner as the API and the CLI show it. */
export interface Partner {
  code_name: string;
  name: string;
  created_at: string;
  created_by: string;
  tenants: { code_name: string; name: string }[];
}

export interface PartnerChange {
  actor: AuditActor;
  ip: string | null;
}

export function presentPartner(row: PartnerRow, tenants: readonly TenantRow[]): Partner {
  return {
    code_name: row.code_name,
    name: row.name,
    created_at: new Date(row.created_at).toISOString(),
    created_by: row.created_by,
    tenants: tenants.map((tenant) => ({ code_name: tenant.code_name, name: tenant.name })),
  };
}

/** The partner with this code name; a 404 `partner_not_found` when there is none. */
export async function requirePartner(db: Kysely<Tables>, codeName: string): Promise<PartnerRow> {
  const row = await findPartnerByCodeName(db, codeName);
  if (!row) throw new AppError('partner_not_found', `no partner has the code name ${JSON.stringify(codeName)}`);
  return row;
}

export async function getPartner(db: Kysely<Tables>, codeName: string): Promise<Partner> {
  const row = await requirePartner(db, codeName);
  return presentPartner(row, await partnerTenantRows(db, row.id));
}

export async function listPartners(db: Kysely<Tables>): Promise<Partner[]> {
  const rows = await listPartnerRows(db);
  const partners: Partner[] = [];
  for (const row of rows) partners.push(presentPartner(row, await partnerTenantRows(db, row.id)));
  return partners;
}

function partnerName(codeName: string, name: string | undefined): string {
  // A blank name is no name: the code name stands in, as for tenants.
  const trimmed = name?.trim() ?? '';
  if (trimmed.length > MAX_PARTNER_NAME_LENGTH)
    throw new AppError('invalid_request', `name must be at most ${MAX_PARTNER_NAME_LENGTH} characters`, {
      extensions: { field: 'name' },
    });
  return trimmed === '' ? codeName : trimmed;
}

/** Creates a partner serving the tenants named (each must exist), in one transaction. */
export async function createPartner(
  db: Kysely<Tables>,
  input: { codeName: string; name?: string; tenants: readonly string[] },
  change: PartnerChange,
): Promise<Partner> {
  if (!isValidCodeName(input.codeName))
    throw new AppError('invalid_code_name', `partner code name ${JSON.stringify(input.codeName)} ${codeNameRule}`);
  const tenants: TenantRow[] = [];
  for (const codeName of new Set(input.tenants)) tenants.push(await requireTenantByCodeName(db, codeName));
  const row: PartnerRow = {
    id: newId('ptn'),
    code_name: input.codeName,
    name: partnerName(input.codeName, input.name),
    created_at: Date.now(),
    created_by: change.actor.label,
  };
  await db.transaction().execute(async (trx) => {
    if (!(await insertPartner(trx, row)))
      throw new AppError('partner_exists', `a partner with code name ${JSON.stringify(row.code_name)} already exists`);
    await recordAudit(trx, {
      tenantId: null,
      action: 'partner.created',
      actor: change.actor,
      ip: change.ip,
      target: { type: 'partner', id: row.id },
      details: { code_name: row.code_name, tenants: tenants.map((tenant) => tenant.code_name) },
    });
    for (const tenant of tenants) await addTenant(trx, row, tenant, change);
  });
  return presentPartner(
    row,
    [...tenants].sort((a, b) => a.code_name.localeCompare(b.code_name)),
  );
}

async function addTenant(
  trx: Kysely<Tables>,
  partner: PartnerRow,
  tenant: TenantRow,
  change: PartnerChange,
): Promise<void> {
  const added = await insertPartnerTenant(trx, {
    partner_id: partner.id,
    tenant_id: tenant.id,
    added_at: Date.now(),
    added_by: change.actor.label,
  });
  if (!added) return;
  await recordAudit(trx, {
    tenantId: tenant.id,
    action: 'partner.tenant_added',
    actor: change.actor,
    ip: change.ip,
    target: { type: 'partner', id: partner.id },
    details: { partner: partner.code_name },
  });
}

/** Lets a partner serve one more tenant; adding a tenant it already serves changes nothing. */
export async function addPartnerTenant(
  db: Kysely<Tables>,
  partnerCode: string,
  tenantCode: string,
  change: PartnerChange,
): Promise<Partner> {
  const partner = await requirePartner(db, partnerCode);
  const tenant = await requireTenantByCodeName(db, tenantCode);
  await db.transaction().execute((trx) => addTenant(trx, partner, tenant, change));
  return presentPartner(partner, await partnerTenantRows(db, partner.id));
}

/**
 * Ends a partner's access to a tenant: its tokens act there no more from their next call. What
 * it did there (comments, status changes) stays, under its name.
 */
export async function removePartnerTenant(
  db: Kysely<Tables>,
  partnerCode: string,
  tenantCode: string,
  change: PartnerChange,
): Promise<Partner> {
  const partner = await requirePartner(db, partnerCode);
  const tenant = await requireTenantByCodeName(db, tenantCode);
  await db.transaction().execute(async (trx) => {
    if (!(await deletePartnerTenant(trx, partner.id, tenant.id))) {
      throw new AppError(
        'tenant_not_found',
        `partner ${partner.code_name} does not serve a tenant with the code name ${JSON.stringify(tenantCode)}`,
      );
    }
    await recordAudit(trx, {
      tenantId: tenant.id,
      action: 'partner.tenant_removed',
      actor: change.actor,
      ip: change.ip,
      target: { type: 'partner', id: partner.id },
      details: { partner: partner.code_name },
    });
  });
  return presentPartner(partner, await partnerTenantRows(db, partner.id));
}
