// Sign-in for people: POST /v1/auth/login sets the session cookie, POST /v1/auth/logout ends
// the session, GET /v1/me says who is calling (and gives the session's CSRF token).
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { DAY_MS, type TokenLifetimePolicy } from '../tokens/token-service.js';
import { Type } from 'typebox';
import type { Tables } from '../../storage/schema.js';
import { principalOf } from '../auth.js';
import { problemResponse, Timestamp } from '../../http/schemas.js';
import { routePlugin } from '../../http/route-plugin.js';
import type { FailureLimiter } from '../throttling/failure-limiter.js';
import type { AccountThrottle } from '../throttling/account-throttle.js';
import { MAX_PASSWORD_LENGTH } from '../users/password.js';
import { csrfTokenFor, login, logout, SESSION_COOKIE, SESSION_MAX_MS } from './session-service.js';
import { findTenantById } from '../tenants/tenant-store.js';
import { PermissionSchema, RoleSchema, TenantSummarySchema, UserSchema } from '../identity-schemas.js';
import { presentUser } from '../users/user-service.js';
import { hasSecondFactor } from '../second-factor/second-factor-service.js';
import { AppError } from '../../core/errors.js';

export interface AuthRouteDependencies {
  db: Kysely<Tables>;
  limiter: FailureLimiter;
  /** Per-account sign-in throttling, across addresses. */
  accounts: AccountThrottle;
  /** Mark the cookie Secure: the browser reaches us over HTTPS (directly or via a proxy). */
  secureCookies: boolean;
  /** Token lifetimes, shown to callers so that token forms offer only what is allowed. */
  lifetime: TokenLifetimePolicy;
}

const LoginBody = Type.Object(
  {
    email: Type.String({ maxLength: 254 }),
    password: Type.String({ maxLength: MAX_PASSWORD_LENGTH }),
    tenant: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()], {
        description:
          "Which account, when the email belongs to people in several tenants: the tenant's code name, or null for the platform operator's account. Leave it out to sign in to the one account the password opens.",
      }),
    ),
    code: Type.Optional(
      Type.String({
        pattern: '^[0-9]{6}$',
        description: "When the account has a second factor: the authenticator app's 6 digits",
      }),
    ),
    recovery_code: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'Instead of `code`: one of the recovery codes (each works once)',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      { email: 'alice@example.com', password: 'correct horse battery staple' },
      { email: 'alice@example.com', password: 'correct horse battery staple', code: '492039' },
      { email: 'alice@example.com', password: 'correct horse battery staple', tenant: 'acme' },
    ],
  },
);

export const SessionSchema = Type.Object({
  user: UserSchema,
  tenant: Type.Union([TenantSummarySchema, Type.Null()], {
    description: "The user's tenant; null for platform operators",
  }),
  csrf_token: Type.String({ description: 'Send it as X-CSRF-Token on every write made with the session cookie' }),
  expires_at: Timestamp('When the session ends at the latest (it also ends after 12 hours unused)'),
});

export const MeSchema = Type.Object(
  {
    kind: Type.Union([Type.Literal('user'), Type.Literal('token')]),
    id: Type.String({ description: 'User id or token id' }),
    label: Type.String({ description: 'Email, or token name' }),
    role: Type.Union([RoleSchema, Type.Null()]),
    operator: Type.Boolean(),
    permissions: Type.Array(PermissionSchema),
    tenant: Type.Union([TenantSummarySchema, Type.Null()]),
    partner: Type.Union(
      [
        Type.Object({
          code_name: Type.String(),
          name: Type.String(),
          tenants: Type.Array(TenantSummarySchema, { description: 'The tenants it serves, by code name' }),
        }),
        Type.Null(),
      ],
      {
        description:
          "A partner's caller (a managed security provider): the partner and the tenants it acts in, one named per call in the Sightline-Tenant header; null otherwise",
      },
    ),
    csrf_token: Type.Union([Type.String(), Type.Null()], {
      description: 'With the session cookie: the CSRF token for writes',
    }),
    second_factor: Type.Boolean({
      description: 'A person: whether their sign-in asks for a second factor (always false for tokens)',
    }),
    token_lifetime: Type.Object(
      {
        default_days: Type.Number({ description: 'Lifetime of a token created without an expiry, in days' }),
        max_days: Type.Union([Type.Number(), Type.Null()], {
          description: 'Longest lifetime a token may be given, in days; null: tokens may never expire',
        }),
      },
      { description: 'The token lifetime rules of this deployment' },
    ),
  },
  {
    examples: [
      {
        kind: 'token',
        id: 'tok_7QmVb2XcT4kR9sLp0aZe',
        label: 'SOAR integration',
        role: null,
        operator: false,
        permissions: ['cases:read'],
        tenant: { code_name: 'acme', name: 'Acme Corp' },
        partner: null,
        csrf_token: null,
        second_factor: false,
        token_lifetime: { default_days: 30, max_days: 365 },
      },
    ],
  },
);

export const authRoutes = routePlugin(function authRoutes(app: FastifyInstance, deps: AuthRouteDependencies): void {
  const { db, limiter, secureCookies, lifetime } = deps;
  const accounts = deps.accounts;
  const cookieOptions = { path: '/', httpOnly: true, sameSite: 'lax', secure: secureCookies } as const;

  app.post(
    '/auth/login',
    {
      config: { access: { scope: 'public' } },
      schema: {
        tags: ['Authentication'],
        summary: 'Sign in',
        description: `Signs a person in with email and password and sets the \`${SESSION_COOKIE}\` cookie (httpOnly, SameSite=Lax). The session ends after 12 hours unused or 7 days in any case. Integrations use API tokens instead. Failed attempts count against the client address's limit. When the account has a second factor, the right password without \`code\` (or \`recovery_code\`) answers 401 \`second_factor_required\` and opens no session; send the same body again with the code. That attempt counts against the account's throttle until a right code follows; a wrong or reused code is a failed attempt. An email may belong to people in several tenants, each an account of its own: when the password opens more than one and the body names no \`tenant\`, the answer is 401 \`tenant_choice_required\` with \`tenants\` (code name and name of each account it opened); send the same body again with \`tenant\`.`,
        body: LoginBody,
        response: {
          200: { ...SessionSchema, description: 'Signed in; the cookie is set' },
          401: problemResponse(
            'Email or password is wrong (`invalid_credentials`); the password opens accounts in several tenants and the body named none (`tenant_choice_required`, with `tenants`); the account needs its second-factor code (`second_factor_required`); or the code is wrong or was already used (`invalid_second_factor_code`)',
            'invalid_credentials',
            'email or password is wrong',
          ),
          429: problemResponse(
            'Too many failed attempts from this address; wait `Retry-After` seconds',
            'too_many_failed_attempts',
            'too many failed attempts from 203.0.113.7; retry in 540 s',
          ),
        },
      },
    },
    async (request, reply) => {
      const body = request.body as {
        email: string;
        password: string;
        tenant?: string | null;
        code?: string;
        recovery_code?: string;
      };
      // A locked-out address may still sign in to an account nobody is failing at (an office
      // behind one NAT); the accounts it was guessing at stay closed to it.
      // Counted before the password is checked, each check-and-count in one step, so concurrent
      // guesses cannot outrun the limits (on PostgreSQL, across every node).
      const { refusal, forgive } = await limiter.attempt(request.ip);
      // An attempt the account's wait refuses is no guess at the address.
      const clearAccount = await accounts.admit(body.email, refusal).catch(async (error: unknown) => {
        await forgive();
        throw error;
      });
      const result = await login(db, {
        email: body.email,
        password: body.password,
        ...(body.tenant !== undefined ? { tenant: body.tenant } : {}),
        secondFactor: { code: body.code, recoveryCode: body.recovery_code },
        ip: request.ip,
        userAgent: request.headers['user-agent'] ?? '',
      }).catch(async (error: unknown) => {
        // The right password, awaiting its code or the choice of account: not a guess from this
        // address, but the account's attempt stays counted until the sign-in completes.
        if (error instanceof AppError && ['second_factor_required', 'tenant_choice_required'].includes(error.code)) {
          await forgive();
          await accounts.awaitingCode(body.email);
        }
        throw error;
      });
      await forgive();
      await clearAccount();
      // Secure whenever the browser reached us over HTTPS, directly or through a trusted proxy.
      reply.setCookie(SESSION_COOKIE, result.cookieValue, {
        ...cookieOptions,
        secure: secureCookies || request.protocol === 'https',
        maxAge: SESSION_MAX_MS / 1000,
      });
      reply.header('Cache-Control', 'no-store');
      const tenant = result.user.tenant_id === null ? undefined : await findTenantById(db, result.user.tenant_id);
      return {
        user: presentUser(result.user),
        tenant: tenant ? { code_name: tenant.code_name, name: tenant.name } : null,
        csrf_token: result.csrfToken,
        expires_at: new Date(result.expiresAt).toISOString(),
      };
    },
  );

  app.post(
    '/auth/logout',
    {
      config: { access: { scope: 'account' } },
      schema: {
        tags: ['Authentication'],
        summary: 'Sign out',
        description:
          'Ends the web session of the cookie and clears it. Needs the X-CSRF-Token header like every cookie-authenticated write. With an API token it does nothing (tokens are deleted, not signed out).',
        response: { 204: { description: 'Signed out', type: 'null' } },
      },
    },
    async (request, reply) => {
      const cookie = request.cookies[SESSION_COOKIE];
      const principal = principalOf(request);
      if (principal.kind === 'user' && cookie) await logout(db, cookie, principal, request.ip);
      reply.clearCookie(SESSION_COOKIE, cookieOptions);
      return reply.code(204).send();
    },
  );

  app.get(
    '/me',
    {
      config: { access: { scope: 'account' } },
      schema: {
        tags: ['Authentication'],
        summary: 'Who is calling',
        description:
          'The caller: the signed-in user or the API token, its permissions and tenant. With the session cookie it also returns the CSRF token that writes must send.',
        response: { 200: { ...MeSchema, description: 'The caller' } },
      },
    },
    async (request, reply) => {
      reply.header('Cache-Control', 'no-store');
      const principal = principalOf(request);
      const tenant = principal.tenantId === null ? undefined : await findTenantById(db, principal.tenantId);
      const cookie = request.cookies[SESSION_COOKIE];
      return {
        kind: principal.kind,
        id: principal.id,
        label: principal.label,
        role: principal.role,
        operator: principal.operator,
        permissions: [...principal.permissions],
        tenant: tenant ? { code_name: tenant.code_name, name: tenant.name } : null,
        partner: principal.partner
          ? {
              code_name: principal.partner.codeName,
              name: principal.partner.name,
              tenants: principal.partner.tenants.map(({ tenant: t }) => ({ code_name: t.code_name, name: t.name })),
            }
          : null,
        csrf_token: principal.csrfToken && cookie ? csrfTokenFor(cookie) : null,
        second_factor: principal.kind === 'user' && (await hasSecondFactor(db, principal.tenantId, principal.id)),
        token_lifetime: {
          default_days: lifetime.defaultMs / DAY_MS,
          max_days: lifetime.maxMs === null ? null : lifetime.maxMs / DAY_MS,
        },
      };
    },
  );
});
