// The tenant's people, for pickers such as a case's assignee: GET /v1/users. Any case reader may
// list them (assigning, filtering by assignee); only the tenant's own active users are listed,
// never platform operators or another tenant's people.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Tables } from '../storage/schema.js';
import { tenantOf } from './auth.js';
import { decodeCursor, encodeCursor } from '../http/pagination.js';
import { NextCursor, PageQuery } from '../http/schemas.js';
import { routePlugin } from '../http/route-plugin.js';
import { RoleSchema } from './identity-schemas.js';
import { listMembers } from './user-service.js';

const memberExample = { id: 'usr_Yx2c9WmQ1pLs7dKe4TzA', email: 'ana@acme.example', name: 'Ana Lima', role: 'analyst' };

export const MemberSchema = Type.Object(
  {
    id: Type.String({ description: 'User id (`usr_…`); also accepted as a case `assignee`' }),
    email: Type.String({ description: 'Sign-in email (lower case); also accepted as a case `assignee`' }),
    name: Type.String({ description: 'Display name (the email when none was given)' }),
    role: RoleSchema,
  },
  { description: 'A user of the tenant', examples: [memberExample] },
);

export const ListUsersQuery = Type.Object(
  {
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 254,
        description: 'Users whose email or name starts with this (case-insensitive)',
      }),
    ),
    ...PageQuery,
  },
  { additionalProperties: false },
);

export const userRoutes = routePlugin(function userRoutes(app: FastifyInstance, deps: { db: Kysely<Tables> }): void {
  const { db } = deps;
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();

  routes.get(
    '/users',
    {
      config: { access: { scope: 'tenant', permission: 'cases:read' } },
      schema: {
        tags: ['Users'],
        summary: "List the tenant's users",
        description:
          "The tenant's active users (id, email, name, role), by email, for pickers such as a case's assignee; `q` keeps those whose email or name starts with it. Platform operators and disabled users are not listed. Needs `cases:read`: whoever reads cases may see who can be assigned to them.",
        querystring: ListUsersQuery,
        response: {
          200: Type.Object(
            { users: Type.Array(MemberSchema), next_cursor: NextCursor },
            { description: 'A page of users', examples: [{ users: [memberExample], next_cursor: null }] },
          ),
        },
      },
    },
    async (request) => {
      const { q, limit, cursor } = request.query;
      const afterEmail = cursor ? decodeCursor<{ e: string }>(cursor, { e: 'string' }).e : undefined;
      const page = await listMembers(db, tenantOf(request).id, {
        limit: limit ?? 50,
        ...(q !== undefined ? { q } : {}),
        ...(afterEmail !== undefined ? { afterEmail } : {}),
      });
      return { users: page.members, next_cursor: page.nextEmail === null ? null : encodeCursor({ e: page.nextEmail }) };
    },
  );
});
