// /v1/case-templates and /v1/sla-policy: a tenant's case templates (tasks, tags and severity a
// case gets by rule, technique, tag or level) and its SLA policy. Everyone who reads cases reads
// them; changing them takes case_settings:write (tenant admins), and each change is audited.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Kysely } from 'kysely';
import type { Tables } from '../../storage/schema.js';
import { principalOf, tenantOf } from '../../identity/auth.js';
import { actorOf } from '../../identity/principal.js';
import { recordAudit, type AuditAction } from '../../identity/audit/audit-service.js';
import { problemResponse } from '../../http/schemas.js';
import { writeTransaction } from '../../storage/write-transaction.js';
import {
  createTemplate,
  deleteTemplate,
  listTemplates,
  MAX_TEMPLATES,
  presentTemplate,
  replaceTemplate,
  requireTemplate,
} from './template-service.js';
import { SlaPolicySchema, TemplateBody, TemplateSchema } from './template-schemas.js';
import { readSlaPolicy, replaceSlaPolicy } from './sla.js';

const TemplateParams = Type.Object({
  template_id: Type.String({ maxLength: 64, description: 'Template id (`tpl_…`)' }),
});
const read = { access: { scope: 'tenant', permission: 'cases:read' } } as const;
const manage = { access: { scope: 'tenant', permission: 'case_settings:write' } } as const;
const tags = ['Case templates and SLAs'];

export function caseTemplateRoutes(app: FastifyInstance, deps: { db: Kysely<Tables> }): void {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = deps;
  const audit = (request: FastifyRequest, action: AuditAction, id: string, details: Record<string, unknown>) =>
    recordAudit(db, {
      tenantId: tenantOf(request).id,
      action,
      actor: actorOf(principalOf(request)),
      ip: request.ip,
      target: { type: 'case_template', id },
      details,
    });

  routes.get(
    '/case-templates',
    {
      config: read,
      schema: {
        tags,
        summary: 'List case templates',
        description: "The tenant's case templates, by name.",
        response: { 200: Type.Object({ templates: Type.Array(TemplateSchema) }) },
      },
    },
    async (request) => ({ templates: (await listTemplates(db, tenantOf(request).id)).map(presentTemplate) }),
  );

  routes.post(
    '/case-templates',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Create a case template',
        description: `Tasks (in order, each required or not), tags and a severity a case gets, once, when an observation of one of \`applies_to.rule_ids\`, \`techniques\` (a sub-technique matches its parent too) or \`levels\` joins it, when it is tagged with one of \`applies_to.tags\`, or by hand (\`POST /v1/cases/{case_id}/templates\`). The case's history says which template, when and why. Names are unique in the tenant; at most ${MAX_TEMPLATES} templates.`,
        body: TemplateBody,
        response: {
          201: TemplateSchema,
          409: problemResponse('The name is taken, or the tenant has the most templates it may', 'template_name_taken'),
        },
      },
    },
    async (request, reply) => {
      const row = await createTemplate(
        db,
        tenantOf(request).id,
        request.body,
        actorOf(principalOf(request)),
        Date.now(),
      );
      await audit(request, 'case_template.created', row.id, { name: row.name });
      return reply.code(201).send(presentTemplate(row));
    },
  );

  routes.get(
    '/case-templates/:template_id',
    {
      config: read,
      schema: { tags, summary: 'Get a case template', params: TemplateParams, response: { 200: TemplateSchema } },
    },
    async (request) => presentTemplate(await requireTemplate(db, tenantOf(request).id, request.params.template_id)),
  );

  routes.put(
    '/case-templates/:template_id',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Replace a case template',
        description:
          'Cases that already got the template keep the tasks they got; cases it applies to from now on get the new version.',
        params: TemplateParams,
        body: TemplateBody,
        response: { 200: TemplateSchema },
      },
    },
    async (request) => {
      const row = await replaceTemplate(db, tenantOf(request).id, request.params.template_id, request.body, Date.now());
      await audit(request, 'case_template.updated', row.id, { name: row.name });
      return presentTemplate(row);
    },
  );

  routes.delete(
    '/case-templates/:template_id',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Delete a case template',
        description: 'Tasks cases already got from it stay on them.',
        params: TemplateParams,
        response: { 204: Type.Null({ description: 'Deleted' }) },
      },
    },
    async (request, reply) => {
      const row = await deleteTemplate(db, tenantOf(request).id, request.params.template_id);
      await audit(request, 'case_template.deleted', row.id, { name: row.name });
      return reply.code(204).send(null);
    },
  );

  routes.get(
    '/sla-policy',
    {
      config: read,
      schema: {
        tags,
        summary: 'Get the SLA policy',
        description:
          'Per severity, the seconds a case may stay new (acknowledge) and open (resolve). A severity left out has no SLA.',
        response: { 200: SlaPolicySchema },
      },
    },
    async (request) => readSlaPolicy(db, tenantOf(request).id),
  );

  routes.put(
    '/sla-policy',
    {
      config: manage,
      schema: {
        tags,
        summary: 'Set the SLA policy',
        description:
          "Replaces the policy. Every case's clocks follow it at once: each case shows `sla` with its acknowledge clock (from creation until it leaves new) and resolve clock (until it closes; paused while on hold), each with its due time, the time left and `breached`. A clock that runs out sends `case.sla_breached` once.",
        body: SlaPolicySchema,
        response: { 200: SlaPolicySchema },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request).id;
      const actor = actorOf(principalOf(request));
      await writeTransaction(db, async (trx) => {
        await replaceSlaPolicy(trx, tenantId, request.body, actor.label, Date.now());
        await recordAudit(trx, {
          tenantId,
          action: 'sla_policy.changed',
          actor,
          ip: request.ip,
          target: { type: 'tenant', id: tenantOf(request).code_name },
          details: { policy: request.body },
        });
      });
      return readSlaPolicy(db, tenantId);
    },
  );
}
