// Answering a question: the tenant's model first (so a tenant without one costs no read), then
// the names of its common fields, then the proposal with its one retry.
import type { Kysely } from 'kysely';
import type { Tables } from '../../storage/schema.js';
import type { TenantRow } from '../../identity/tenants/tenant-store.js';
import { AppError } from '../../core/errors.js';
import { recentFields } from '../telemetry-fields.js';
import type { AskModelFor } from './ask-model.js';
import { proposeQuery, type Proposal } from './query-proposal.js';

/** Enough names to cover a tenant's sources without a long prompt. */
const MAX_FIELDS_SENT = 150;

export async function askQuestion(
  deps: { db: Kysely<Tables>; modelFor: AskModelFor },
  tenant: TenantRow,
  question: string,
  now = new Date(),
): Promise<Proposal> {
  const asked = question.trim();
  if (asked === '') throw new AppError('invalid_request', 'question is blank', { extensions: { field: 'question' } });
  const model = deps.modelFor(tenant);
  const { fields } = await recentFields(deps.db, tenant.id);
  return proposeQuery(model, { question: asked, fields: fields.slice(0, MAX_FIELDS_SENT).map((f) => f.path), now });
}
