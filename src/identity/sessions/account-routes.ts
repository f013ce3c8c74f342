// A person's own account: their web sessions (see them, end one, sign out everywhere else), and
// the public side of one-time codes: look at an invitation or reset code and set the password
// with it. Codes are 190-bit random values, but a wrong one still counts as a failed attempt
// from the address, like a wrong password.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Tables } from '../../storage/schema.js';
import { AppError } from '../../core/errors.js';
import { sha256 } from '../../core/secrets.js';
import { problemResponse, Timestamp } from '../../http/schemas.js';
import { routePlugin } from '../../http/route-plugin.js';
import { principalOf } from '../auth.js';
import type { FailureLimiter } from '../throttling/failure-limiter.js';
import { MAX_PASSWORD_LENGTH } from '../users/password.js';
import { actorOf, type Principal } from '../principal.js';
import { endSessions, listSessions } from './session-list.js';
import { SESSION_COOKIE } from './session-service.js';
import { SessionListSchema } from '../users/user-admin-routes.js';
import { describeCode, redeemCode } from '../users/user-admin-service.js';

const CodeBody = Type.Object(
  { code: Type.String({ minLength: 1, maxLength: 100, description: 'The one-time code (`slc_…`)' }) },
  { additionalProperties: false, examples: [{ code: 'slc_4fT9xQ2mLp7VwZk1cRbN8sYd3HjE6gUa' }] },
);
const RedeemBody = Type.Object(
  {
    code: Type.String({ minLength: 1, maxLength: 100 }),
    password: Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH }),
  },
  {
    additionalProperties: false,
    examples: [{ code: 'slc_4fT9xQ2mLp7VwZk1cRbN8sYd3HjE6gUa', password: 'plum-harbour-quietly-42' }],
  },
);
const invalidCode = problemResponse(
  'The code is unknown, used, replaced or expired',
  'invalid_code',
  'this link or code is not valid: it was used, replaced or expired',
);
const throttled = problemResponse(
  'Too many failed attempts from this address; wait `Retry-After` seconds',
  'too_many_failed_attempts',
  'too many failed attempts from 203.0.113.7; retry in 540 s',
);

/** The signed-in person behind a request: API tokens have no sessions. */
function personOf(request: FastifyRequest): Principal & { userId: string } {
  const principal = principalOf(request);
  if (principal.kind !== 'user' || principal.userId === null)
    throw new AppError('permission_denied', 'API tokens have no web sessions; sign in to see yours');
  return { ...principal, userId: principal.userId };
}

export const accountRoutes = routePlugin(function accountRoutes(
  app: FastifyInstance,
  deps: { db: Kysely<Tables>; limiter: FailureLimiter },
): void {
  const { db, limiter } = deps;
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Authentication'];
  const currentKey = (request: FastifyRequest) => {
    const cookie = request.cookies[SESSION_COOKIE];
    return cookie === undefined ? undefined : sha256(cookie);
  };
  const self = (person: Principal & { userId: string }) => ({
    id: person.userId,
    email: person.label,
    tenant_id: person.tenantId,
  });

  routes.get(
    '/me/sessions',
    {
      config: { access: { scope: 'account' } },
      schema: {
        tags,
        summary: 'My sessions',
        description: 'Where you are signed in, most recently used first; `current` marks this browser.',
        response: { 200: { ...SessionListSchema, description: 'Your sessions' } },
      },
    },
    async (request) => ({ sessions: await listSessions(db, personOf(request).userId, currentKey(request)) }),
  );

  routes.delete(
    '/me/sessions',
    {
      config: { access: { scope: 'account' } },
      schema: {
        tags,
        summary: 'Sign out everywhere else',
        description: 'Ends every session of yours except the one making this request.',
        response: {
          200: Type.Object({ ended: Type.Integer() }, { description: 'How many ended', examples: [{ ended: 3 }] }),
        },
      },
    },
    async (request) => {
      const person = personOf(request);
      const keepKey = currentKey(request);
      const which = keepKey === undefined ? { all: true as const } : { all: true as const, keepKey };
      return { ended: await endSessions(db, self(person), which, { actor: actorOf(person), ip: request.ip }) };
    },
  );

  routes.delete(
    '/me/sessions/:session_id',
    {
      config: { access: { scope: 'account' } },
      schema: {
        tags,
        summary: 'End one of my sessions',
        description: 'Signs that browser out (its next call answers 401). A session that is not yours answers 404.',
        params: Type.Object({ session_id: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: { 204: { description: 'Ended', type: 'null' } },
      },
    },
    async (request, reply) => {
      const person = personOf(request);
      await endSessions(
        db,
        self(person),
        { id: request.params.session_id },
        { actor: actorOf(person), ip: request.ip },
      );
      return reply.code(204).send(null);
    },
  );

  /** A code check is a credential attempt: a wrong code counts against the address. */
  const attempt = <T>(request: FastifyRequest, work: () => Promise<T>): Promise<T> =>
    limiter.guard(request.ip, work, (error) => error instanceof AppError && error.code === 'invalid_code');

  routes.post(
    '/auth/password-codes/check',
    {
      config: { access: { scope: 'public' } },
      schema: {
        tags,
        summary: 'Look at a one-time code',
        description:
          'Whose invitation or password reset a code is, and until when it works: what the set-password page shows before the person chooses a password.',
        body: CodeBody,
        response: {
          200: Type.Object(
            {
              email: Type.String(),
              name: Type.String(),
              purpose: Type.Enum(['invitation', 'password_reset']),
              expires_at: Timestamp('When the code stops working'),
            },
            {
              description: 'The code is live',
              examples: [
                {
                  email: 'ana@acme.example',
                  name: 'Ana Lima',
                  purpose: 'invitation',
                  expires_at: '2026-12-03T09:00:00.000Z',
                },
              ],
            },
          ),
          404: invalidCode,
          429: throttled,
        },
      },
    },
    async (request, reply) => {
      reply.header('Cache-Control', 'no-store');
      return attempt(request, () => describeCode(db, request.body.code));
    },
  );

  routes.post(
    '/auth/password-codes/redeem',
    {
      config: { access: { scope: 'public' } },
      schema: {
        tags,
        summary: 'Set a password with a one-time code',
        description:
          'Sets the password (it must pass the password rules), spends the code and ends every session the person had. They then sign in with the new password.',
        body: RedeemBody,
        response: {
          200: Type.Object(
            { email: Type.String({ description: 'The account, to sign in with' }) },
            { description: 'Password set', examples: [{ email: 'ana@acme.example' }] },
          ),
          404: invalidCode,
          429: throttled,
        },
      },
    },
    async (request) => ({
      email: await attempt(request, () => redeemCode(db, request.body.code, request.body.password, request.ip)),
    }),
  );
});
