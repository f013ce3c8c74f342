// Managing the tenant's people (docs/security.md, People and sessions): invite, read, change role or name,
// disable and re-enable, delete, issue a password reset code, and see and end their sessions.
// Tenant admins hold users:read and users:write; operators act in a tenant they name.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Tables } from '../../storage/schema.js';
import { Timestamp } from '../../http/schemas.js';
import { routePlugin } from '../../http/route-plugin.js';
import { principalOf, tenantOf } from '../auth.js';
import { MAX_PASSWORD_LENGTH } from './password.js';
import { actorOf } from '../principal.js';
import { endSessions, listSessions } from '../sessions/session-list.js';
import { PermissionSchema } from '../identity-schemas.js';
import { tenantRoles } from '../permissions.js';
import {
  deleteUser,
  getManagedUser,
  inviteUser,
  issuePasswordReset,
  requireUser,
  updateUser,
  type Change,
} from './user-admin-service.js';

export const TenantRoleSchema = Type.Enum(tenantRoles, { description: 'admin, analyst or viewer' });

const userExample = {
  id: 'usr_Yx2c9WmQ1pLs7dKe4TzA',
  email: 'ana@acme.example',
  name: 'Ana Lima',
  role: 'analyst',
  permissions: ['cases:read', 'cases:write'],
  created_at: '2026-11-02T08:00:00.000Z',
  status: 'active',
  disabled_at: null,
  last_login_at: '2026-11-25T07:58:12.000Z',
};

export const ManagedUserSchema = Type.Object(
  {
    id: Type.String({ description: 'User id (`usr_…`)' }),
    email: Type.String(),
    name: Type.String(),
    role: Type.Enum(['operator', ...tenantRoles]),
    permissions: Type.Array(PermissionSchema, { description: 'What the role allows' }),
    created_at: Timestamp('When the user was added'),
    status: Type.Enum(['active', 'invited', 'disabled'], {
      description:
        'active; invited (has not yet set a password with the invitation code); disabled (cannot sign in; sessions and tokens were ended)',
    }),
    disabled_at: Type.Union([Timestamp('When the user was disabled'), Type.Null()]),
    last_login_at: Type.Union([Timestamp('Last sign-in'), Type.Null()]),
  },
  { description: 'A person of the tenant, as the Users page shows them', examples: [userExample] },
);

const codeExample = {
  code: 'slc_4fT9xQ2mLp7VwZk1cRbN8sYd3HjE6gUa',
  purpose: 'invitation',
  expires_at: '2026-12-03T09:00:00.000Z',
  path: '/set-password#code=slc_4fT9xQ2mLp7VwZk1cRbN8sYd3HjE6gUa',
};

export const OneTimeCodeSchema = Type.Object(
  {
    code: Type.String({ description: 'The one-time code. Shown this once; only its hash is kept.' }),
    purpose: Type.Enum(['invitation', 'password_reset']),
    expires_at: Timestamp('When the code stops working (invitations: 7 days; resets: 24 hours)'),
    path: Type.String({
      description:
        "The web UI page that takes the code, to append to the server's address and hand to the person (the code is in the fragment, which browsers never send to a server)",
    }),
  },
  { examples: [codeExample] },
);

const SessionSchema = Type.Object(
  {
    id: Type.String({ description: 'Session id (`ses_…`; not the cookie)' }),
    created_at: Timestamp('Sign-in time'),
    last_seen_at: Timestamp('Last use (to the minute)'),
    expires_at: Timestamp('When it ends unless used again (12 hours unused, 7 days at most)'),
    ip: Type.String({ description: 'Address it signed in from' }),
    user_agent: Type.String({ description: 'Browser that signed in' }),
    current: Type.Boolean({ description: 'The session of this very request' }),
  },
  {
    examples: [
      {
        id: 'ses_b3kQ9xL2mTz7VwP0cRfN1a',
        created_at: '2026-11-25T07:58:12.000Z',
        last_seen_at: '2026-11-25T10:41:00.000Z',
        expires_at: '2026-11-25T22:41:00.000Z',
        ip: '203.0.113.7',
        user_agent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0',
        current: false,
      },
    ],
  },
);
export const SessionListSchema = Type.Object({ sessions: Type.Array(SessionSchema) });

const UserParams = Type.Object({ user_id: Type.String({ minLength: 1, maxLength: 64 }) });
const SessionParams = Type.Object({
  user_id: Type.String({ minLength: 1, maxLength: 64 }),
  session_id: Type.String({ minLength: 1, maxLength: 64 }),
});

const InviteBody = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 254 }),
    name: Type.Optional(Type.String({ maxLength: 200 })),
    role: TenantRoleSchema,
    password: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_PASSWORD_LENGTH,
        description:
          'Set the password now (it must pass the password rules); leave it out to get an invitation code instead, with which the person chooses it',
      }),
    ),
  },
  { additionalProperties: false, examples: [{ email: 'ana@acme.example', name: 'Ana Lima', role: 'analyst' }] },
);

const UpdateBody = Type.Object(
  {
    role: Type.Optional(TenantRoleSchema),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    disabled: Type.Optional(
      Type.Boolean({
        description:
          'true: the person can no longer sign in; their sessions end and their API tokens (and what those minted) are revoked at once. false: re-enable (revoked tokens stay revoked)',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1, examples: [{ role: 'viewer' }, { disabled: true }] },
);

const changeOf = (request: FastifyRequest): Change => {
  const principal = principalOf(request);
  return { actor: actorOf(principal), ip: request.ip, personId: principal.userId };
};
const tags = ['Users'];

export const userAdminRoutes = routePlugin(function userAdminRoutes(
  app: FastifyInstance,
  deps: { db: Kysely<Tables> },
): void {
  const { db } = deps;
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  const read = { access: { scope: 'tenant', permission: 'users:read' } } as const;
  const write = { access: { scope: 'tenant', permission: 'users:write' } } as const;

  routes.post(
    '/users',
    {
      config: write,
      schema: {
        tags,
        summary: 'Add a person to the tenant',
        description:
          'Invites a person (admin, analyst or viewer). Without `password` the answer carries a one-time invitation code (7 days) with which they choose their password; with one, they can sign in at once. An email is one person per tenant (409 `user_exists` when it is already a member here); the same email may belong to people in other tenants, each an account of its own.',
        body: InviteBody,
        response: {
          201: Type.Object(
            { user: ManagedUserSchema, invitation: Type.Union([OneTimeCodeSchema, Type.Null()]) },
            {
              description: 'Added',
              examples: [{ user: { ...userExample, status: 'invited' }, invitation: codeExample }],
            },
          ),
        },
      },
    },
    async (request, reply) => {
      const { email, name, role, password } = request.body;
      const created = await inviteUser(
        db,
        tenantOf(request).id,
        { email, role, ...(name !== undefined ? { name } : {}), ...(password !== undefined ? { password } : {}) },
        changeOf(request),
      );
      reply.header('Cache-Control', 'no-store');
      return reply.code(201).send(created);
    },
  );

  routes.get(
    '/users/:user_id',
    {
      config: read,
      schema: {
        tags,
        summary: 'Get a person',
        description: 'One person of the tenant with their status and last sign-in.',
        params: UserParams,
        response: { 200: { ...ManagedUserSchema, description: 'The person' } },
      },
    },
    async (request) => getManagedUser(db, tenantOf(request).id, request.params.user_id),
  );

  routes.patch(
    '/users/:user_id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Change role or name, disable or re-enable',
        description:
          "Changes what is given. A role that loses permissions revokes the person's API tokens that hold them. Disabling ends their sessions and revokes their tokens at once. Nobody can demote or disable themselves, nor the tenant's last active admin (409 `user_change_refused`).",
        params: UserParams,
        body: UpdateBody,
        response: { 200: { ...ManagedUserSchema, description: 'The person, changed' } },
      },
    },
    async (request) => updateUser(db, tenantOf(request).id, request.params.user_id, request.body, changeOf(request)),
  );

  routes.delete(
    '/users/:user_id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Delete a person',
        description:
          'The person can never sign in again: sessions end, tokens are revoked, and their email is freed for a new account. Cases, comments and the audit log keep their name.',
        params: UserParams,
        response: { 204: { description: 'Deleted', type: 'null' } },
      },
    },
    async (request, reply) => {
      await deleteUser(db, tenantOf(request).id, request.params.user_id, changeOf(request));
      return reply.code(204).send(null);
    },
  );

  routes.post(
    '/users/:user_id/password-reset',
    {
      config: write,
      schema: {
        tags,
        summary: 'Issue a password reset code',
        description:
          "A one-time code (24 hours) with which the person sets a new password at `path`; it replaces any earlier code (someone who never set a password gets a new invitation instead). Setting the password ends all their sessions. Hand the code over a channel you trust. A signed-in admin only: an API token gets 403 `session_required` (a leaked token must not open a way into a person's account).",
        params: UserParams,
        response: { 201: { ...OneTimeCodeSchema, description: 'The code, shown this once' } },
      },
    },
    async (request, reply) => {
      const code = await issuePasswordReset(db, tenantOf(request).id, request.params.user_id, changeOf(request));
      reply.header('Cache-Control', 'no-store');
      return reply.code(201).send(code);
    },
  );

  routes.get(
    '/users/:user_id/sessions',
    {
      config: read,
      schema: {
        tags,
        summary: "List a person's sessions",
        description: 'Their web sessions still alive, most recently used first.',
        params: UserParams,
        response: { 200: { ...SessionListSchema, description: 'The sessions' } },
      },
    },
    async (request) => {
      const user = await requireUser(db, tenantOf(request).id, request.params.user_id);
      return { sessions: await listSessions(db, user.id) };
    },
  );

  routes.delete(
    '/users/:user_id/sessions',
    {
      config: write,
      schema: {
        tags,
        summary: "End all of a person's sessions",
        description: 'Signs them out everywhere; their API tokens are not affected.',
        params: UserParams,
        response: {
          200: Type.Object({ ended: Type.Integer() }, { description: 'How many ended', examples: [{ ended: 2 }] }),
        },
      },
    },
    async (request) => {
      const user = await requireUser(db, tenantOf(request).id, request.params.user_id);
      return { ended: await endSessions(db, user, { all: true }, changeOf(request)) };
    },
  );

  routes.delete(
    '/users/:user_id/sessions/:session_id',
    {
      config: write,
      schema: {
        tags,
        summary: 'End one session',
        description: "Signs the person out of that browser. A session id that is not this person's answers 404.",
        params: SessionParams,
        response: { 204: { description: 'Ended', type: 'null' } },
      },
    },
    async (request, reply) => {
      const user = await requireUser(db, tenantOf(request).id, request.params.user_id);
      await endSessions(db, user, { id: request.params.session_id }, changeOf(request));
      return reply.code(204).send(null);
    },
  );
});
