// Authentication and authorization for `/v1`. Every route declares its access in
// `config.access`; one onRequest hook then authenticates the caller (Bearer token, Basic with
// the token as password, or the session cookie), enforces CSRF on cookie-authenticated writes,
// checks the permission, and resolves the tenant the call acts in. All of it happens before
// the body is read. The same declaration documents the route's security and errors in OpenAPI.
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import '@fastify/cookie';
import type { Kysely } from 'kysely';
import type { Tables } from '../storage/schema.js';
import { AppError, type ProblemCode } from '../core/errors.js';
import type { FailureLimiter } from './throttling/failure-limiter.js';
import { permissionDescriptions, type Permission } from './permissions.js';
import type { Principal } from './principal.js';
import { actorOf } from './principal.js';
import { recordAudit } from './audit/audit-service.js';
import { authenticateToken, presentedToken } from './credentials.js';
export { presentedToken };
import { resolveSession, SESSION_COOKIE } from './sessions/session-service.js';
import { sameSecret } from '../core/secrets.js';
import type { TenantRow } from './tenants/tenant-store.js';
import { resolveTenantScope, TENANT_HEADER } from './tenant-scope.js';
import type { Metrics } from '../observability/metrics.js';
import { problemResponse } from '../http/schemas.js';

/**
 * Who may call a route. `tenant`: acts inside one tenant (the caller's; operators name it in
 * the `Sightline-Tenant` header). `account`: any signed-in caller, no tenant. `operator`:
 * platform operators only. `public`: no credentials (sign-in).
 */
export type Access =
  | { scope: 'public' }
  | {
      scope: 'account' | 'operator' | 'tenant';
      permission?: Permission;
      /**
       * A person without the permission may still call, on what is their own (their API tokens):
       * the route then sees `request.ownOnly` and acts only on the caller's own objects.
       */
      orOwn?: true;
      /** Permissions needed besides `permission` (reading a summary shows case data: cases:read too). */
      also?: readonly Permission[];
      /**
       * Tenant scope: a partner's caller that names no tenant acts across all the partner's tenants
       * where it holds the permissions (`request.tenants`, `request.tenant` null) instead of 400.
       */
      acrossTenants?: true;
    };

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyInstance {
    /** Every /v1 route with its access, as registered: what the OpenAPI document must cover. */
    apiRoutes: { method: string; url: string; access: Access }[];
  }
  interface FastifyRequest {
    principal: Principal | null;
    tenant: TenantRow | null;
    /** A partner's call across its tenants (Access.acrossTenants): the tenants it acts in. */
    tenants: TenantRow[] | null;
    /** The caller lacks the route's permission and may act only on what is their own (Access.orOwn). */
    ownOnly: boolean;
  }
}

export { TENANT_HEADER };
export const CSRF_HEADER = 'x-csrf-token';
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The security schemes of the OpenAPI document; requirements name them. */
export const securitySchemes = {
  PersonalAccessToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      'An API token (`slt_…`) created under Settings > Integrations > API Configuration or with `sightline token create`, sent as `Authorization: Bearer <token>`.',
  },
  TokenAsBasicPassword: {
    type: 'http',
    scheme: 'basic',
    description: 'HTTP Basic with any username and the API token as the password.',
  },
  SessionCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE,
    description: `The web UI's session cookie from POST /v1/auth/login. Writes must also send the session's CSRF token in the \`X-CSRF-Token\` header.`,
  },
} as const;

const challenge = 'Bearer realm="sightline", Basic realm="sightline", charset="UTF-8"';
/**
 * Scripts in a page (the web UI sends `X-Requested-With`) get no Basic challenge: a browser
 * answers one with its own sign-in prompt instead of letting the page show its sign-in form.
 */
function challengeFor(request: FastifyRequest): string {
  return request.headers['x-requested-with'] ? 'Bearer realm="sightline"' : challenge;
}

export interface AuthDependencies {
  db: Kysely<Tables>;
  limiter: FailureLimiter;
  metrics: Metrics;
}

/** The principal of a request that passed authentication (routes with non-public access). */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal)
    throw new Error(`route ${request.routeOptions.url} used the principal without authenticating`);
  return request.principal;
}

/** The tenant a tenant-scoped request acts in. */
export function tenantOf(request: FastifyRequest): TenantRow {
  if (!request.tenant)
    throw new Error(`route ${request.routeOptions.url} used the tenant without declaring tenant scope`);
  return request.tenant;
}

/**
 * The tenants a tenant-scoped request acts in: the one it names, or on a route that takes it, a
 * partner's tenants at once.
 */
export function tenantsOf(request: FastifyRequest): TenantRow[] {
  if (request.tenant) return [request.tenant];
  if (request.tenants) return request.tenants;
  throw new Error(`route ${request.routeOptions.url} used the tenants without declaring tenant scope`);
}

export function installAuth(app: FastifyInstance, deps: AuthDependencies): void {
  decorateRequests(app);
  app.addHook('onRoute', (route) => {
    const access = declaredAccess(route);
    const methods = [route.method].flat().join(',');
    if (access.scope !== 'public' && access.permission === 'observations:write' && access.scope !== 'tenant') {
      throw new Error(
        `route ${methods} ${route.url}: observations:write needs tenant scope, where the tenant's approval is checked`,
      );
    }
    documentAccess(route, access);
    for (const method of [route.method].flat())
      if (method !== 'HEAD') app.apiRoutes.push({ method, url: route.url, access });
  });
  app.addHook('onRequest', accessCheck(deps));
}

/**
 * The same credentials and access checks for routes outside /v1 (POST /mcp): each declares its
 * access alike, but they are not part of the /v1 document, so they stay out of `apiRoutes`.
 */
export function installAccessCheck(app: FastifyInstance, deps: AuthDependencies): void {
  decorateRequests(app);
  app.addHook('onRoute', (route) => {
    declaredAccess(route);
  });
  app.addHook('onRequest', accessCheck(deps));
}

function decorateRequests(app: FastifyInstance): void {
  app.decorateRequest('principal', null);
  app.decorateRequest('tenant', null);
  app.decorateRequest('tenants', null);
  app.decorateRequest('ownOnly', false);
}

function declaredAccess(route: RouteOptions): Access {
  const access = route.config?.access;
  if (access) return access;
  const methods = [route.method].flat().join(',');
  throw new Error(`route ${methods} ${route.url} declares no access; every authenticated route must`);
}

/** The onRequest hook: authenticates the caller, checks CSRF and the permission, resolves the tenant. */
function accessCheck(deps: AuthDependencies): (request: FastifyRequest) => Promise<void> {
  const { db, limiter, metrics } = deps;
  const reject = async (
    request: FastifyRequest,
    code: ProblemCode,
    detail: string,
    audit?: { tenantId: number | null; subject: string },
  ) => {
    metrics.authFailures.inc({ reason: code });
    if (audit) {
      await recordAudit(db, {
        tenantId: audit.tenantId,
        action: 'auth.credentials_rejected',
        outcome: 'failure',
        actor: { type: 'anonymous', id: null, label: audit.subject },
        ip: request.ip,
        details: { reason: code, path: request.routeOptions.url },
      });
    }
    throw new AppError(code, detail, { headers: { 'WWW-Authenticate': challengeFor(request) } });
  };

  const authenticate = async (request: FastifyRequest): Promise<Principal> => {
    const token = presentedToken(request.headers.authorization);
    if (token !== undefined) {
      // A locked-out address is refused guesses, not its known tokens: 178 random bits cannot be
      // guessed anyway, and its other users (one NAT, one office) keep working. For the same
      // reason a token is counted only once it proves unknown, so a known one costs no write to
      // the limit the API nodes share on PostgreSQL.
      const refusal = await limiter.lockedOut(request.ip);
      const check = await authenticateToken(db, token, request.ip);
      if (check.ok) return check.principal;
      // Only an unknown token is a guess. A known one that expired or was deleted is a stale
      // integration: counting it would lock everyone behind the same address out.
      if (!refusal && check.code === 'invalid_credentials') await limiter.attempt(request.ip);
      if (refusal) {
        metrics.authFailures.inc({ reason: 'too_many_failed_attempts' });
        throw refusal;
      }
      const detail = {
        invalid_credentials: 'the API token is not valid',
        token_expired: `the API token expired at ${new Date(check.expiresAt ?? 0).toISOString()}`,
        token_revoked: 'the API token was deleted and can no longer be used',
      }[check.code];
      return reject(request, check.code, detail, check.known);
    }
    // A token, when sent, is the credential; without one, the session cookie is.
    const cookie = request.cookies[SESSION_COOKIE];
    if (cookie === undefined) {
      throw new AppError(
        'unauthenticated',
        'send an API token as "Authorization: Bearer <token>" (or as the Basic password), or sign in',
        {
          headers: { 'WWW-Authenticate': challengeFor(request) },
        },
      );
    }
    // Session cookies are 256-bit random values, not guessable, so a miss is a session that
    // ended: it does not count as a failed attempt, and the dead cookie is cleared.
    const session = await resolveSession(db, cookie);
    if (session.ok) return session.principal;
    metrics.authFailures.inc({ reason: session.code });
    throw new AppError(
      session.code,
      session.code === 'session_expired'
        ? 'the session expired; sign in again'
        : 'the session is not valid; sign in again',
      {
        headers: {
          'WWW-Authenticate': challengeFor(request),
          'Set-Cookie': `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`,
        },
      },
    );
  };

  return async (request) => {
    const access = request.routeOptions.config.access;
    if (!access || access.scope === 'public') return;
    let principal = await authenticate(request);
    request.principal = principal;

    // A browser says when a request comes from another site; no write may (cookies, or Basic
    // credentials a browser cached for /docs, would otherwise ride along).
    if (UNSAFE_METHODS.has(request.method) && request.headers['sec-fetch-site'] === 'cross-site') {
      throw new AppError('csrf_token_invalid', 'cross-site writes are refused');
    }
    if (principal.csrfToken && UNSAFE_METHODS.has(request.method)) {
      const sent = request.headers[CSRF_HEADER];
      if (typeof sent !== 'string' || !sameSecret(sent, principal.csrfToken)) {
        throw new AppError(
          'csrf_token_invalid',
          `writes with the session cookie must send the session's CSRF token in the X-CSRF-Token header (GET /v1/me returns it)`,
        );
      }
    }
    if (access.scope === 'operator' && !principal.operator) {
      throw new AppError('operator_required', 'only platform operators may do this');
    }
    const needs = [access.permission, ...(access.also ?? [])].filter((p): p is Permission => p !== undefined);
    if (access.scope === 'tenant') {
      const scope = await resolveTenantScope(db, principal, request.headers[TENANT_HEADER], {
        acrossTenants: access.acrossTenants === true,
        needs,
      });
      request.tenant = scope.tenant;
      request.tenants = scope.tenants;
      request.principal = principal = scope.principal;
    }
    const lacking = needs.find((permission) => !principal.permissions.has(permission));
    if (lacking !== undefined && lacking === access.permission && access.orOwn && principal.kind === 'user') {
      request.ownOnly = true;
    } else if (lacking !== undefined) {
      await recordAudit(db, {
        tenantId: request.tenant?.id ?? principal.tenantId,
        action: 'auth.permission_denied',
        outcome: 'failure',
        actor: actorOf(principal),
        ip: request.ip,
        details: { required_permission: lacking, method: request.method, path: request.routeOptions.url },
      });
      throw new AppError(
        'permission_denied',
        `this call needs the permission ${lacking}, which the ${principal.kind} does not have`,
        { extensions: { required_permission: lacking } },
      );
    }
    // Writing observations needs the platform's prior approval of the tenant, on top of the
    // permission (docs/detection.md, Writing observations). Declared once here, so no observation-writing
    // route can forget it.
    if (
      access.permission === 'observations:write' &&
      (request.tenant?.observation_write_approved_at ?? null) === null
    ) {
      throw new AppError(
        'observation_write_not_approved',
        `tenant ${request.tenant?.code_name ?? '(none)'} is not approved to write observations; a tenant admin files the review (impact on managed services, correlation with other observations, expected volume) with POST /v1/observation-write-requests`,
      );
    }
  };
}

/** Schemas already documented: Fastify registers a HEAD route sharing each GET's schema. */
const documented = new WeakSet<object>();

/** Adds the route's security requirement, its permission and its error responses to its schema. */
function documentAccess(route: RouteOptions, access: Access): void {
  const schema = (route.schema ??= {}) as Record<string, unknown>;
  if (documented.has(schema)) return;
  documented.add(schema);
  const responses = (schema.response ??= {}) as Record<string, unknown>;
  const add = (status: string, description: string, code: ProblemCode, detail?: string) => {
    responses[status] ??= problemResponse(description, code, detail);
  };
  if (schema.body || schema.querystring || schema.params)
    add(
      '400',
      'The request is malformed: the problem names the field and what was wrong',
      'invalid_request',
      'body/name must NOT have fewer than 1 characters',
    );
  if (access.scope !== 'public') {
    schema.security = [{ PersonalAccessToken: [] }, { TokenAsBasicPassword: [] }, { SessionCookie: [] }];
    add(
      '401',
      'Missing, unknown, expired or deleted credentials (`WWW-Authenticate` names the Bearer and Basic schemes)',
      'token_revoked',
      'the API token was deleted and can no longer be used',
    );
    const forbidden = [
      access.permission ? `the credentials lack the permission \`${access.permission}\`` : undefined,
      access.scope === 'operator' ? 'the caller is not a platform operator' : undefined,
      'a session-cookie write came without its CSRF token',
    ].filter(Boolean);
    add(
      '403',
      `Forbidden: ${forbidden.join('; or ')}`,
      access.permission
        ? 'permission_denied'
        : access.scope === 'operator'
          ? 'operator_required'
          : 'csrf_token_invalid',
      access.permission
        ? `this call needs the permission ${access.permission}, which the token does not have`
        : undefined,
    );
    add(
      '429',
      'Too many failed authentication attempts from this address; wait `Retry-After` seconds',
      'too_many_failed_attempts',
      'too many failed attempts from 203.0.113.7; retry in 540 s',
    );
    const also = (access.also ?? []).map((permission) => ` and \`${permission}\``).join('');
    const needs = access.permission
      ? `\n\n**Requires** the permission \`${access.permission}\` (${permissionDescriptions[access.permission]})${also}${access.orOwn ? '; without it, a signed-in person acts on their own tokens only' : ''}.`
      : access.scope === 'operator'
        ? '\n\n**Requires** a platform operator.'
        : '';
    schema.description = `${typeof schema.description === 'string' ? schema.description : ''}${needs}`;
  }
  if (access.scope === 'tenant') {
    add('404', 'Not found in the tenant of the call (objects of other tenants are never revealed)', 'not_found');
    const headers = (schema.headers ??= { type: 'object', properties: {} }) as { properties: Record<string, unknown> };
    headers.properties[TENANT_HEADER] = {
      type: 'string',
      description: `Platform operators and partners: the code name of the tenant this call acts in (a partner's: one of the tenants it serves). Members of a tenant leave it out.${access.acrossTenants ? ' A partner that leaves it out acts across all its tenants.' : ''}`,
    };
  }
  add(
    '5XX',
    'Server-side failure; the problem carries a request id to quote',
    'internal_error',
    'an unexpected error occurred; quote request id req-7 when reporting it',
  );
}
