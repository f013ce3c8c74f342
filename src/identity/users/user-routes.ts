// The tenant's people: GET /v1/users. Any case reader may list the active ones (pickers such as a
// case's assignee); holders of users:read (the Users page) also see disabled and invited people
// with their status and last sign-in. Never platform operators or another tenant's people.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Tables } from '../../storage/schema.js';
import { tenantOf } from '../auth.js';
import { decodeCursor, encodeCursor } from '../../http/pagination.js';
import { NextCursor, PageQuery } from '../../http/schemas.js';
import { routePlugin } from '../../http/route-plugin.js';
import { RoleSchema } from '../identity-schemas.js';
import { listMembers, presentMember } from './user-service.js';
import { AppError } from '../../core/errors.js';
import { ManagedUserSchema } from './user-admin-routes.js';
import { presentManagedUser } from './user-admin-service.js';
import { pageManagedUsers } from './user-store.js';
import { principalOf } from '../auth.js';

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
    status: Type.Optional(
      Type.Enum(['active', 'disabled', 'any'], {
        description:
          'active (the default; invited people included); disabled; any. Other than active needs `users:read`',
      }),
    ),
    ...PageQuery,
  },
  { additionalProperties: false },
);

/** A listed user: what pickers need, and for holders of users:read what the Users page shows. */
const ListedUserSchema = Type.Object(
  {
    ...MemberSchema.properties,
    ...Type.Partial(Type.Omit(ManagedUserSchema, ['id', 'email', 'name', 'role'])).properties,
  },
  {
    description: 'A user of the tenant; `status`, `permissions`, dates: only for callers with `users:read`',
    examples: [memberExample],
  },
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
          "The tenant's users by email; `q` keeps those whose email or name starts with it. Without `users:read`: active users (id, email, name, role), for pickers such as a case's assignee. With it: any `status`, and each user's status, permissions, creation, disabling and last sign-in. Platform operators and deleted users are never listed. Needs `cases:read`: whoever reads cases may see who can be assigned to them.",
        querystring: ListUsersQuery,
        response: {
          200: Type.Object(
            { users: Type.Array(ListedUserSchema), next_cursor: NextCursor },
            { description: 'A page of users', examples: [{ users: [memberExample], next_cursor: null }] },
          ),
        },
      },
    },
    async (request) => {
      const { q, limit = 50, cursor, status = 'active' } = request.query;
      const tenantId = tenantOf(request).id;
      const afterEmail = cursor ? decodeCursor<{ e: string }>(cursor, { e: 'string' }).e : undefined;
      const manager = principalOf(request).permissions.has('users:read');
      if (!manager && status !== 'active')
        throw new AppError('permission_denied', `listing ${status} users needs the permission users:read`, {
          extensions: { required_permission: 'users:read' },
        });
      if (!manager) {
        const page = await listMembers(db, tenantId, {
          limit,
          ...(q !== undefined ? { q } : {}),
          ...(afterEmail !== undefined ? { afterEmail } : {}),
        });
        return {
          users: page.members,
          next_cursor: page.nextEmail === null ? null : encodeCursor({ e: page.nextEmail }),
        };
      }
      const rows = await pageManagedUsers(db, tenantId, {
        status,
        limit: limit + 1,
        ...(q?.trim() ? { prefix: q.trim() } : {}),
        ...(afterEmail !== undefined ? { afterEmail } : {}),
      });
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        users: page.map((row) => ({ ...presentManagedUser(row), ...presentMember(row) })),
        next_cursor: rows.length > limit && last ? encodeCursor({ e: last.email }) : null,
      };
    },
  );
});
