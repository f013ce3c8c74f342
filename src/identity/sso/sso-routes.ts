// Single sign-on with OpenID Connect: tenant admins configure their provider (GET, PUT, DELETE
// /v1/sso); people start at /v1/auth/sso/{tenant_code_name}/start and come back through the one
// callback every tenant registers. Sign-in answers are redirects: to the provider, to the page
// the person came for, or to the login page with an `sso_error` code it shows as text.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Tables } from '../../storage/schema.js';
import { errorMessage } from '../../core/errors.js';
import { problemResponse } from '../../http/schemas.js';
import { routePlugin } from '../../http/route-plugin.js';
import { principalOf, tenantOf } from '../auth.js';
import type { FailureLimiter } from '../throttling/failure-limiter.js';
import { actorOf } from '../principal.js';
import { SESSION_COOKIE, SESSION_MAX_MS } from '../sessions/session-service.js';
import { ProviderCache } from './sso-provider.js';
import { SsoSettingsBody, SsoSettingsSchema } from './sso-schemas.js';
import {
  deleteSsoSettings,
  readSsoSettings,
  saveSsoSettings,
  SSO_CALLBACK_PATH,
  type SsoContext,
} from './sso-service.js';
import {
  beginSignIn,
  finishSignIn,
  SSO_FLOW_COOKIE,
  SSO_FLOW_COOKIE_PATH,
  SSO_FLOW_TTL_MS,
  SsoRefusal,
} from './sso-sign-in.js';

export interface SsoRouteDependencies {
  db: Kysely<Tables>;
  limiter: FailureLimiter;
  /** Mark cookies Secure: the browser reaches us over HTTPS (directly or via a proxy). */
  secureCookies: boolean;
  /** Where browsers reach this deployment, read when needed (the port is known once listening). */
  address: { readonly publicUrl: string };
}

const redirect302 = { description: 'Redirect (see `Location`)', type: 'null' } as const;

export const ssoRoutes = routePlugin(function ssoRoutes(app: FastifyInstance, deps: SsoRouteDependencies): void {
  const { db, limiter, address } = deps;
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  const providers = new ProviderCache();
  const context = (request: FastifyRequest): SsoContext => ({
    db,
    tenant: tenantOf(request),
    actor: actorOf(principalOf(request)),
    ip: request.ip,
    providers,
    publicUrl: address.publicUrl,
  });
  const secure = (request: FastifyRequest) => deps.secureCookies || request.protocol === 'https';
  const flowCookie = (request: FastifyRequest) =>
    ({ path: SSO_FLOW_COOKIE_PATH, httpOnly: true, sameSite: 'lax', secure: secure(request) }) as const;

  /** To the login page, saying why (and offering the tenant's code name again). */
  const refuse = (request: FastifyRequest, reply: FastifyReply, refusal: SsoRefusal) => {
    request.log.warn({ reason: refusal.audit, cause: errorMessage(refusal.cause ?? '') }, 'single sign-on refused');
    const query = new URLSearchParams({ sso_error: refusal.reason });
    if (refusal.tenantCode !== undefined && /^[a-z0-9-]{1,63}$/.test(refusal.tenantCode))
      query.set('tenant', refusal.tenantCode);
    return reply.header('Cache-Control', 'no-store').redirect(`/login?${query.toString()}`, 302);
  };

  const notConfigured = problemResponse(
    'The tenant has no single sign-on configured (on GET the problem also gives `redirect_uri` and `sign_in_url`)',
    'sso_not_configured',
    'tenant acme has no single sign-on configured',
  );

  routes.get(
    '/sso',
    {
      config: { access: { scope: 'tenant', permission: 'sso:read' } },
      schema: {
        tags: ['Authentication'],
        summary: 'Read the single sign-on settings',
        description:
          "The tenant's OpenID Connect provider settings, the redirect URI to register at the provider and the sign-in address. The client secret is never returned, only `client_secret_set`.",
        response: { 200: { ...SsoSettingsSchema, description: 'The settings' }, 404: notConfigured },
      },
    },
    async (request) => readSsoSettings(context(request)),
  );

  routes.put(
    '/sso',
    {
      config: { access: { scope: 'tenant', permission: 'sso:write' } },
      schema: {
        tags: ['Authentication'],
        summary: 'Configure single sign-on',
        description:
          "Creates or replaces the tenant's OpenID Connect settings. Discovery runs against the issuer first: an issuer that is not https (plain http is accepted on a loopback address only) answers 400, a provider that cannot be reached or used answers 422 with the reason, and nothing is saved.",
        body: SsoSettingsBody,
        response: {
          200: { ...SsoSettingsSchema, description: 'Saved' },
          422: problemResponse(
            'Discovery at the issuer failed; the detail says why',
            'sso_discovery_failed',
            'OpenID Connect discovery at https://login.acme.example/ failed: fetch failed',
          ),
        },
      },
    },
    async (request) => saveSsoSettings(context(request), request.body),
  );

  routes.delete(
    '/sso',
    {
      config: { access: { scope: 'tenant', permission: 'sso:write' } },
      schema: {
        tags: ['Authentication'],
        summary: 'Remove single sign-on',
        description:
          "Deletes the tenant's single sign-on settings, client secret included. People provisioned by it stay; they can no longer sign in through the provider.",
        response: { 204: { description: 'Removed', type: 'null' }, 404: notConfigured },
      },
    },
    async (request, reply) => {
      await deleteSsoSettings(context(request));
      return reply.code(204).send(null);
    },
  );

  routes.get(
    '/auth/sso/:tenant_code_name/start',
    {
      config: { access: { scope: 'public' } },
      schema: {
        tags: ['Authentication'],
        summary: 'Start single sign-on',
        description:
          "Sends the browser to the tenant's identity provider (authorization code flow with PKCE), remembering for ten minutes, in an encrypted httpOnly cookie, what the callback needs. An unknown tenant and one without single sign-on both redirect to the login page with `sso_error=sso_unavailable`; a sign-in another site starts (`Sec-Fetch-Site: cross-site`) with `sso_error=cross_site`.",
        params: Type.Object({
          tenant_code_name: Type.String({ maxLength: 63, description: "The organisation's code name" }),
        }),
        querystring: Type.Object(
          {
            return_to: Type.Optional(
              Type.String({
                maxLength: 2048,
                description: 'Path on this site to land on once signed in (`/cases`); anything else lands on `/`',
              }),
            ),
          },
          { additionalProperties: false, examples: [{ return_to: '/cases' }] },
        ),
        response: { 302: redirect302 },
      },
    },
    async (request, reply) => {
      const { tenant_code_name: codeName } = request.params;
      const { return_to: returnTo } = request.query;
      let started: Awaited<ReturnType<typeof beginSignIn>>;
      try {
        // Another site may not start a sign-in: it could sign the browser into an account of its
        // choosing (login CSRF). Browsers say where a navigation came from.
        if (request.headers['sec-fetch-site'] === 'cross-site')
          throw new SsoRefusal('cross_site', { tenantCode: codeName });
        started = await beginSignIn({ db, providers, publicUrl: address.publicUrl }, { codeName, returnTo });
      } catch (error) {
        if (error instanceof SsoRefusal) return refuse(request, reply, error);
        throw error;
      }
      reply.setCookie(SSO_FLOW_COOKIE, started.cookie, { ...flowCookie(request), maxAge: SSO_FLOW_TTL_MS / 1000 });
      return reply.header('Cache-Control', 'no-store').redirect(started.location, 302);
    },
  );

  routes.get(
    SSO_CALLBACK_PATH.slice('/v1'.length),
    {
      config: { access: { scope: 'public' } },
      schema: {
        tags: ['Authentication'],
        summary: 'Single sign-on callback',
        description:
          "The redirect URI registered at every tenant's provider. Exchanges the code, checks the id token (issuer, audience, nonce, signature), a verified email in an allowed domain and the role, provisions the person in the tenant on first sign-in, sets the session cookie as `POST /v1/auth/login` does and redirects to the page asked for. Refusals redirect to `/login?sso_error=<code>` and are audited as `auth.login_failed`; they count against the address's failed attempts.",
        querystring: Type.Object(
          {
            code: Type.Optional(Type.String({ maxLength: 4096 })),
            state: Type.Optional(Type.String({ maxLength: 512 })),
            error: Type.Optional(Type.String({ maxLength: 256 })),
          },
          {
            // Providers add their own parameters (iss, session_state, scope…).
            additionalProperties: true,
            examples: [{ code: 'SplxlOBeZQQYbYS6WxSbIA', state: 'af0ifjsldkj' }],
          },
        ),
        response: { 302: redirect302 },
      },
    },
    async (request, reply) => {
      reply.clearCookie(SSO_FLOW_COOKIE, flowCookie(request));
      const { refusal: lockedOut, forgive } = await limiter.attempt(request.ip);
      let signedIn: Awaited<ReturnType<typeof finishSignIn>>;
      try {
        if (lockedOut) throw new SsoRefusal('too_many_attempts');
        signedIn = await finishSignIn(
          { db, providers, publicUrl: address.publicUrl },
          {
            cookie: request.cookies[SSO_FLOW_COOKIE],
            search: new URL(request.url, 'http://callback').search,
            ip: request.ip,
            userAgent: request.headers['user-agent'] ?? '',
          },
        );
      } catch (error) {
        if (error instanceof SsoRefusal) return refuse(request, reply, error);
        throw error;
      }
      await forgive();
      // The session cookie exactly as POST /v1/auth/login sets it.
      reply.setCookie(SESSION_COOKIE, signedIn.session.cookieValue, {
        path: '/',
        httpOnly: true,
        sameSite: 'lax',
        secure: secure(request),
        maxAge: SESSION_MAX_MS / 1000,
      });
      return reply.header('Cache-Control', 'no-store').redirect(signedIn.returnTo, 302);
    },
  );
});
