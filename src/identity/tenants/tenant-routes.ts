// Tenants over the API: every caller reads its own tenant (GET /v1/tenant); platform operators
// list, create and change tenants, including the approval to write observations.
import type { SummaryProviderName } from '../../config/config.js';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Tables } from '../../storage/schema.js';
import { AppError } from '../../core/errors.js';
import { principalOf, tenantOf } from '../auth.js';
import { decodeCursor, encodeCursor } from '../../http/pagination.js';
import { NextCursor, PageQuery, problemResponse, Timestamp } from '../../http/schemas.js';
import { routePlugin } from '../../http/route-plugin.js';
import { codeNameRule } from '../../core/code-name.js';
import { actorOf } from '../principal.js';
import { recordAudit } from '../audit/audit-service.js';
import {
  changeTenant,
  createTenant,
  presentTenantResource,
  requireTenantByCodeName,
  type CollectorAddressSettings,
  type TenantReactions,
} from './tenant-service.js';
import { listTenants } from './tenant-store.js';

const tenantExample = {
  code_name: 'acme',
  name: 'Acme Corp',
  created_at: '2026-11-01T08:00:00.000Z',
  collector_url: 'https://acme-collector.sightline.example',
  observation_write_approved: false,
  observation_write_approved_at: null,
  ai_summaries: 'on',
  summary_provider: null,
  summary_provider_in_effect: 'builtin',
};

export const TenantSchema = Type.Object(
  {
    code_name: Type.String({ description: 'Anonymised identifier; the first label of the collector address' }),
    name: Type.String({ description: 'Display name' }),
    created_at: Timestamp('Creation time'),
    collector_url: Type.String({ description: "Where the tenant's forwarders POST /log_sink" }),
    observation_write_approved: Type.Boolean({
      description: 'Whether the platform approved this tenant writing observations',
    }),
    observation_write_approved_at: Type.Union([Timestamp('When it was approved'), Type.Null()]),
    ai_summaries: Type.Union([Type.Literal('on'), Type.Literal('off')], {
      description: 'AI case summaries for this tenant: off when it opted out (through its account manager or support)',
    }),
    summary_provider: Type.Union([Type.String(), Type.Null()], {
      description: "The tenant's summary provider (builtin, openai, anthropic); null: the deployment's",
    }),
    summary_provider_in_effect: Type.String({
      description:
        "The provider that writes its summaries: the tenant's, else the deployment's. builtin is the offline summariser on the server (no language model, nothing leaves the server)",
    }),
  },
  { examples: [tenantExample] },
);

const CodeNameParams = Type.Object({ code_name: Type.String({ maxLength: 63, description: 'Tenant code name' }) });

export const tenantRoutes = routePlugin(function tenantRoutes(
  app: FastifyInstance,
  deps: {
    db: Kysely<Tables>;
    address: CollectorAddressSettings;
    reactions: TenantReactions;
    /** The deployment's summary provider, in effect for tenants that name none. */
    summaryProvider: SummaryProviderName;
  },
): void {
  const { db, address, reactions, summaryProvider: deploymentProvider } = deps;
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();

  routes.get(
    '/tenant',
    {
      config: { access: { scope: 'tenant' } },
      schema: {
        tags: ['Tenants'],
        summary: 'Get the current tenant',
        description: 'The tenant the call acts in: its code name, display name, collector address and approvals.',
        response: { 200: { ...TenantSchema, description: 'The tenant' } },
      },
    },
    (request) => presentTenantResource(tenantOf(request), address, deploymentProvider),
  );

  routes.get(
    '/tenants',
    {
      config: { access: { scope: 'operator' } },
      schema: {
        tags: ['Tenants'],
        summary: 'List tenants',
        description: 'Every tenant of the platform, by code name.',
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: {
          200: Type.Object(
            { tenants: Type.Array(TenantSchema), next_cursor: NextCursor },
            { description: 'A page of tenants', examples: [{ tenants: [tenantExample], next_cursor: null }] },
          ),
        },
      },
    },
    async (request) => {
      const { limit = 50, cursor } = request.query;
      const after = cursor ? decodeCursor<{ n: string }>(cursor, { n: 'string' }).n : undefined;
      const rows = (await listTenants(db)).filter((row) => after === undefined || row.code_name > after);
      const shown = rows.slice(0, limit);
      const last = shown.at(-1);
      return {
        tenants: shown.map((row) => presentTenantResource(row, address, deploymentProvider)),
        next_cursor: rows.length > limit && last ? encodeCursor({ n: last.code_name }) : null,
      };
    },
  );

  routes.post(
    '/tenants',
    {
      config: { access: { scope: 'operator' } },
      schema: {
        tags: ['Tenants'],
        summary: 'Create a tenant',
        description: `Creates a customer organisation. The code name ${codeNameRule}; it is the anonymised identifier shown to models and the first label of the collector address.`,
        body: Type.Object(
          { code_name: Type.String({ maxLength: 63 }), name: Type.Optional(Type.String({ maxLength: 200 })) },
          { additionalProperties: false, examples: [{ code_name: 'acme', name: 'Acme Corp' }] },
        ),
        response: {
          201: { ...TenantSchema, description: 'Created' },
          409: problemResponse(
            'The code name is taken',
            'tenant_exists',
            'a tenant with code name "acme" already exists',
          ),
        },
      },
    },
    async (request, reply) => {
      const created = await createTenant(db, {
        codeName: request.body.code_name,
        ...(request.body.name ? { name: request.body.name } : {}),
      });
      await recordAudit(db, {
        tenantId: created.id,
        action: 'tenant.created',
        actor: actorOf(principalOf(request)),
        ip: request.ip,
        details: { code_name: created.codeName },
      });
      const row = await requireTenantByCodeName(db, created.codeName);
      return reply.code(201).send(presentTenantResource(row, address, deploymentProvider));
    },
  );

  routes.patch(
    '/tenants/:code_name',
    {
      config: { access: { scope: 'operator' } },
      schema: {
        tags: ['Tenants'],
        summary: 'Change a tenant',
        description:
          "Renames a tenant, grants/withdraws the platform's approval for it to write observations (until it is granted, writing observations answers 403), turns its AI case summaries off (opt-out) or back on, or sets its summary provider. Every change is in the tenant's audit log.",
        params: CodeNameParams,
        body: Type.Object(
          {
            name: Type.Optional(Type.String({ maxLength: 200 })),
            observation_write_approved: Type.Optional(Type.Boolean()),
            ai_summaries: Type.Optional(
              Type.Union([Type.Literal('on'), Type.Literal('off')], {
                description: 'off: the tenant opts out of AI summaries; on: opts back in',
              }),
            ),
            summary_provider: Type.Optional(
              Type.Union([Type.Null(), Type.Literal('builtin'), Type.Literal('openai'), Type.Literal('anthropic')], {
                description: "This tenant's provider; null: the deployment's",
              }),
            ),
          },
          { additionalProperties: false, examples: [{ observation_write_approved: true }, { ai_summaries: 'off' }] },
        ),
        response: {
          200: { ...TenantSchema, description: 'The tenant after the change' },
          404: problemResponse(
            'No tenant has this code name',
            'tenant_not_found',
            'no tenant has the code name "acme"',
          ),
        },
      },
    },
    async (request) => {
      const {
        name,
        observation_write_approved: approved,
        ai_summaries: aiSummaries,
        summary_provider: summaryProvider,
      } = request.body;
      if (name === undefined && approved === undefined && aiSummaries === undefined && summaryProvider === undefined) {
        throw new AppError(
          'invalid_request',
          'give name, observation_write_approved, ai_summaries or summary_provider',
        );
      }
      const changes = {
        ...(name !== undefined ? { name } : {}),
        ...(approved !== undefined ? { observationWriteApproved: approved } : {}),
        ...(aiSummaries !== undefined ? { aiSummaries } : {}),
        ...(summaryProvider !== undefined ? { summaryProvider } : {}),
      };
      const row = await changeTenant(
        db,
        request.params.code_name,
        changes,
        { actor: actorOf(principalOf(request)), ip: request.ip },
        reactions,
      );
      return presentTenantResource(row, address, deploymentProvider);
    },
  );
});
