// /v1/partners: platform operators create partner organisations (managed security providers),
// choose the tenants each serves, and issue and delete the partner's API tokens.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { Tables } from '../../storage/schema.js';
import { principalOf } from '../auth.js';
import { actorOf } from '../principal.js';
import { decodeCursor, encodeCursor } from '../../http/pagination.js';
import { problemResponse } from '../../http/schemas.js';
import { routePlugin } from '../../http/route-plugin.js';
import { parseIsoTime } from '../../core/time.js';
import { allPermissions, parsePermissions } from '../permissions.js';
import type { TokenLifetimePolicy } from '../tokens/token-rules.js';
import {
  addPartnerTenant,
  createPartner,
  getPartner,
  listPartners,
  removePartnerTenant,
  requirePartner,
} from './partner-service.js';
import { createPartnerToken, deletePartnerToken, listPartnerTokens } from './partner-token-service.js';
import {
  CreatedPartnerTokenSchema,
  CreatePartnerBody,
  CreatePartnerTokenBody,
  PartnerListQuery,
  PartnerListSchema,
  PartnerParams,
  PartnerSchema,
  PartnerTenantParams,
  PartnerTokenListSchema,
  PartnerTokenParams,
} from './partner-schemas.js';
import { TokenSchema } from '../identity-schemas.js';

const tags = ['Partners'];
const operator = { access: { scope: 'operator' } } as const;
const noPartner = problemResponse(
  'No partner has this code name',
  'partner_not_found',
  'no partner has the code name "mssp"',
);

export const partnerRoutes = routePlugin(function partnerRoutes(
  app: FastifyInstance,
  deps: { db: Kysely<Tables>; lifetime: TokenLifetimePolicy },
): void {
  const { db, lifetime } = deps;
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  const change = (request: FastifyRequest) => ({ actor: actorOf(principalOf(request)), ip: request.ip });

  routes.get(
    '/partners',
    {
      config: operator,
      schema: {
        tags,
        summary: 'List partners',
        description: 'Every partner organisation, by code name, with the tenants it serves.',
        querystring: PartnerListQuery,
        response: { 200: PartnerListSchema },
      },
    },
    async (request) => {
      const { limit = 50, cursor } = request.query;
      const after = cursor ? decodeCursor<{ n: string }>(cursor, { n: 'string' }).n : undefined;
      const partners = (await listPartners(db)).filter((p) => after === undefined || p.code_name > after);
      const shown = partners.slice(0, limit);
      const last = shown.at(-1);
      return {
        partners: shown,
        next_cursor: partners.length > limit && last ? encodeCursor({ n: last.code_name }) : null,
      };
    },
  );

  routes.post(
    '/partners',
    {
      config: operator,
      schema: {
        tags,
        summary: 'Create a partner',
        description:
          "Creates a partner organisation serving the tenants named. Its tokens act in each of them; every tenant's audit log records that the partner was given access.",
        body: CreatePartnerBody,
        response: {
          201: { ...PartnerSchema, description: 'Created' },
          404: problemResponse('A tenant named does not exist', 'tenant_not_found'),
          409: problemResponse('The code name is taken', 'partner_exists'),
        },
      },
    },
    async (request, reply) => {
      const { code_name: codeName, name, tenants = [] } = request.body;
      const created = await createPartner(
        db,
        { codeName, ...(name !== undefined ? { name } : {}), tenants },
        change(request),
      );
      return reply.code(201).send(created);
    },
  );

  routes.get(
    '/partners/:code_name',
    {
      config: operator,
      schema: {
        tags,
        summary: 'Get a partner',
        description: 'One partner organisation with the tenants it serves.',
        params: PartnerParams,
        response: { 200: { ...PartnerSchema, description: 'The partner' }, 404: noPartner },
      },
    },
    async (request) => getPartner(db, request.params.code_name),
  );

  routes.put(
    '/partners/:code_name/tenants/:tenant_code_name',
    {
      config: operator,
      schema: {
        tags,
        summary: 'Add a tenant to a partner',
        description:
          "Lets the partner's tokens act in one more tenant, from their next call. Adding a tenant the partner already serves changes nothing. Recorded in the tenant's audit log.",
        params: PartnerTenantParams,
        response: {
          200: { ...PartnerSchema, description: 'The partner after the change' },
          404: problemResponse(
            'No such partner (`partner_not_found`) or tenant (`tenant_not_found`)',
            'partner_not_found',
          ),
        },
      },
    },
    async (request) => addPartnerTenant(db, request.params.code_name, request.params.tenant_code_name, change(request)),
  );

  routes.delete(
    '/partners/:code_name/tenants/:tenant_code_name',
    {
      config: operator,
      schema: {
        tags,
        summary: 'Remove a tenant from a partner',
        description:
          "Ends the partner's access to the tenant: its tokens are refused there from their next call. What it did there stays. Recorded in the tenant's audit log.",
        params: PartnerTenantParams,
        response: {
          200: { ...PartnerSchema, description: 'The partner after the change' },
          404: problemResponse(
            'No such partner (`partner_not_found`), or it does not serve the tenant (`tenant_not_found`)',
            'tenant_not_found',
          ),
        },
      },
    },
    async (request) =>
      removePartnerTenant(db, request.params.code_name, request.params.tenant_code_name, change(request)),
  );

  routes.get(
    '/partners/:code_name/tokens',
    {
      config: operator,
      schema: {
        tags,
        summary: "List a partner's tokens",
        description:
          "The partner's API tokens, newest first, deleted and expired ones included, each with its permissions, status and last use. Token values are never returned.",
        params: PartnerParams,
        querystring: PartnerListQuery,
        response: { 200: PartnerTokenListSchema, 404: noPartner },
      },
    },
    async (request) => {
      const partner = await requirePartner(db, request.params.code_name);
      const { limit = 50, cursor } = request.query;
      const before = cursor ? decodeCursor<{ c: number; i: string }>(cursor, { c: 'number', i: 'string' }) : undefined;
      const page = await listPartnerTokens(db, partner, {
        limit,
        ...(before ? { before: { createdAt: before.c, id: before.i } } : {}),
      });
      return {
        tokens: page.tokens,
        next_cursor: page.next ? encodeCursor({ c: page.next.createdAt, i: page.next.id }) : null,
      };
    },
  );

  routes.post(
    '/partners/:code_name/tokens',
    {
      config: operator,
      schema: {
        tags,
        summary: 'Create a partner token',
        description:
          'Creates an API token of the partner. It acts in every tenant the partner serves, with the permissions given, naming one in the `Sightline-Tenant` header or, on `POST /v1/cases`, across them all. The response holds the value: shown this once, only its hash is stored. The same lifetime rules as tenant tokens apply; a partner token creates no tokens.',
        params: PartnerParams,
        body: CreatePartnerTokenBody,
        response: {
          201: { ...CreatedPartnerTokenSchema, description: 'Created; `value` is the token' },
          404: noPartner,
        },
      },
    },
    async (request, reply) => {
      const partner = await requirePartner(db, request.params.code_name);
      const { name, permissions, expires_at: expiresAt } = request.body;
      const created = await createPartnerToken(db, partner, {
        name,
        permissions: permissions.includes('all') ? allPermissions : parsePermissions(permissions),
        expiresAt:
          expiresAt === undefined ? undefined : expiresAt === null ? null : parseIsoTime('expires_at', expiresAt),
        lifetime,
        ...change(request),
      });
      reply.header('Cache-Control', 'no-store');
      return reply.code(201).send(created);
    },
  );

  routes.delete(
    '/partners/:code_name/tokens/:token_id',
    {
      config: operator,
      schema: {
        tags,
        summary: 'Delete a partner token',
        description:
          'Marks the token `deleted`: it can never authenticate again, and it stays in the list with who deleted it and when. Deleting a deleted token changes nothing.',
        params: PartnerTokenParams,
        response: {
          200: { ...TokenSchema, description: 'The token, now deleted' },
          404: problemResponse('No such partner (`partner_not_found`) or token (`not_found`)', 'not_found'),
        },
      },
    },
    async (request) => {
      const partner = await requirePartner(db, request.params.code_name);
      return deletePartnerToken(db, partner, request.params.token_id, change(request));
    },
  );
});
