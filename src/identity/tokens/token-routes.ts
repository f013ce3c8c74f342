// /v1/tokens: create (value shown once), list (deleted ones included), read, delete. Admins
// (tokens:read / tokens:write) see and manage every token of the tenant; any signed-in person
// creates, sees and deletes their own, within their role's permissions.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Tables } from '../../storage/schema.js';
import { principalOf, tenantOf } from '../auth.js';
import { decodeCursor, encodeCursor } from '../../http/pagination.js';
import { NextCursor, PageQuery, problemResponse } from '../../http/schemas.js';
import { routePlugin } from '../../http/route-plugin.js';
import { actorOf } from '../principal.js';
import { PermissionSchema, TokenSchema, tokenExample } from '../identity-schemas.js';
import { allPermissions, parsePermissions } from '../permissions.js';
import { parseIsoTime } from '../../core/time.js';
import type { FastifyRequest } from 'fastify';
import { findToken } from './token-store.js';
import { AppError } from '../../core/errors.js';
import {
  createToken,
  deleteToken,
  listTenantTokens,
  presentToken,
  type ApiToken,
  MAX_TOKEN_NAME_LENGTH,
  type TokenLifetimePolicy,
  type TokenStatus,
} from './token-service.js';

const CreateTokenBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: MAX_TOKEN_NAME_LENGTH, description: 'What the token is for' }),
    permissions: Type.Array(Type.Union([PermissionSchema, Type.Literal('all')]), {
      minItems: 1,
      uniqueItems: true,
      description: 'Permissions to grant, or ["all"] for every permission the creator has',
    }),
    expires_at: Type.Optional(
      Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
        description:
          'Expiry (ISO 8601), within the maximum token lifetime. Absent: the default lifetime (30 days unless the operator set another). null: never expires, allowed only where the operator set no maximum',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      { name: 'SOAR integration', permissions: ['cases:read', 'cases:write'], expires_at: '2027-02-20T09:15:00Z' },
    ],
  },
);

const CreatedTokenSchema = Type.Object(
  {
    token: TokenSchema,
    value: Type.String({ description: 'The token itself. Shown this once: it cannot be read again; store it now' }),
  },
  { examples: [{ token: tokenExample, value: 'slt_Q3v8nZr1Tk0bXy4Wm9Lc2Hs7Jp5Fd6Ga1e0PxM' }] },
);

const TokenParams = Type.Object({ token_id: Type.String({ maxLength: 64, description: 'Token id (`tok_…`)' }) });

const ListTokensQuery = Type.Object(
  {
    status: Type.Optional(
      Type.String({
        pattern: '^(active|expired|deleted)(,(active|expired|deleted)){0,2}$',
        description: 'One status or several, comma-separated (e.g. active,expired)',
      }),
    ),
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Tokens whose name or creator holds this (case-insensitive)',
      }),
    ),
    ...PageQuery,
  },
  { additionalProperties: false },
);

/** The token, when the caller may see it: any of the tenant's with tokens:read, else only their own. */
async function visibleToken(db: Kysely<Tables>, request: FastifyRequest, id: string): Promise<ApiToken> {
  const row = await findToken(db, tenantOf(request).id, id);
  const own =
    row !== undefined && row.created_by_user_id !== null && row.created_by_user_id === principalOf(request).userId;
  if (!row || (request.ownOnly && !own)) throw new AppError('not_found', `no token ${JSON.stringify(id)}`);
  return presentToken(row);
}

export const tokenRoutes = routePlugin(function tokenRoutes(
  app: FastifyInstance,
  deps: { db: Kysely<Tables>; lifetime: TokenLifetimePolicy },
): void {
  const { db, lifetime } = deps;
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();

  routes.post(
    '/tokens',
    {
      config: { access: { scope: 'tenant', permission: 'tokens:write', orOwn: true } },
      schema: {
        tags: ['API tokens'],
        summary: 'Create a token',
        description:
          'Creates an API token for the tenant. The response holds the token value: it is shown this once and only its hash is stored. A token cannot grant a permission its creator lacks, nor outlive a token that creates it; deleting a token revokes the tokens it created.',
        body: CreateTokenBody,
        response: {
          201: { ...CreatedTokenSchema, description: 'Created; `value` is the token' },
          403: problemResponse(
            "Forbidden: the credentials lack the permission `tokens:write`; or a session-cookie write came without its CSRF token; or the caller is a partner's token (`partner_token_refused`)",
            'permission_denied',
          ),
        },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      // A tenant token it minted would outlive the partner's access to the tenant.
      if (principal.partner) {
        throw new AppError(
          'partner_token_refused',
          "a partner's token cannot create tenant tokens; a platform operator creates partner tokens",
        );
      }
      const { name, permissions, expires_at: expiresAt } = request.body;
      const created = await createToken(db, {
        tenantId: tenantOf(request).id,
        name,
        permissions: permissions.includes('all')
          ? allPermissions.filter((permission) => principal.permissions.has(permission))
          : parsePermissions(permissions),
        expiresAt:
          expiresAt === undefined ? undefined : expiresAt === null ? null : parseIsoTime('expires_at', expiresAt),
        creator: {
          actor: actorOf(principal),
          userId: principal.userId,
          tokenId: principal.kind === 'token' ? principal.id : null,
          permissions: principal.permissions,
          expiresAt: principal.expiresAt,
        },
        lifetime,
        ip: request.ip,
      });
      reply.header('Cache-Control', 'no-store');
      return reply.code(201).send(created);
    },
  );

  routes.get(
    '/tokens',
    {
      config: { access: { scope: 'tenant', permission: 'tokens:read', orOwn: true } },
      schema: {
        tags: ['API tokens'],
        summary: 'List tokens',
        description:
          "The tenant's tokens, newest first, deleted and expired ones included unless `status` says otherwise, each with its creator, permissions, status and last use. Token values are never returned.",
        querystring: ListTokensQuery,
        response: {
          200: Type.Object(
            { tokens: Type.Array(TokenSchema), next_cursor: NextCursor },
            { description: 'A page of tokens', examples: [{ tokens: [tokenExample], next_cursor: null }] },
          ),
        },
      },
    },
    async (request) => {
      const { limit = 50, cursor, status, q } = request.query;
      const before = cursor ? decodeCursor<{ c: number; i: string }>(cursor, { c: 'number', i: 'string' }) : undefined;
      const filter = {
        ...(status ? { statuses: status.split(',') as TokenStatus[] } : {}),
        ...(q !== undefined ? { text: q } : {}),
        ...(request.ownOnly ? { createdByUserId: principalOf(request).userId ?? '' } : {}),
      };
      const page = await listTenantTokens(db, tenantOf(request).id, filter, {
        limit,
        ...(before ? { before: { createdAt: before.c, id: before.i } } : {}),
      });
      return {
        tokens: page.tokens,
        next_cursor: page.next ? encodeCursor({ c: page.next.createdAt, i: page.next.id }) : null,
      };
    },
  );

  routes.get(
    '/tokens/:token_id',
    {
      config: { access: { scope: 'tenant', permission: 'tokens:read', orOwn: true } },
      schema: {
        tags: ['API tokens'],
        summary: 'Get a token',
        description: 'One token of the tenant (never its value).',
        params: TokenParams,
        response: { 200: { ...TokenSchema, description: 'The token' } },
      },
    },
    async (request) => visibleToken(db, request, request.params.token_id),
  );

  routes.delete(
    '/tokens/:token_id',
    {
      config: { access: { scope: 'tenant', permission: 'tokens:write', orOwn: true } },
      schema: {
        tags: ['API tokens'],
        summary: 'Delete a token',
        description:
          'Marks the token `deleted`: it can never authenticate again, and it stays in the list with who deleted it and when. Every token it created (and theirs) is revoked with it, with the reason. Deleting a deleted token changes nothing.',
        params: TokenParams,
        response: { 200: { ...TokenSchema, description: 'The token, now deleted' } },
      },
    },
    async (request) => {
      await visibleToken(db, request, request.params.token_id);
      return deleteToken(db, tenantOf(request).id, request.params.token_id, actorOf(principalOf(request)), request.ip);
    },
  );
});
