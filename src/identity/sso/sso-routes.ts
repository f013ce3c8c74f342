// Single sign-on with OpenID Connect: tenant admins configure their provider (GET, PUT, DELETE
// /v1/sso) and verify its email domains; people start at /v1/auth/sso/{tenant_code_name}/start
// and come back through the one callback every tenant registers. Sign-in answers are
// redirects: to the provider, to the page the person came for, or to the login page with an
// `sso_error` code it shows as text (for a link to confirm, to the page that confirms it).
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
import type { OutboundPolicy } from '../../http/outbound-address.js';
import { DISCOVERY_FAILED_DETAIL, DiscoveryFailed, ProviderCache } from './sso-provider.js';
import { SsoSettingsBody, SsoSettingsSchema } from './sso-schemas.js';
import {
  deleteSsoSettings,
  readSsoSettings,
  saveSsoSettings,
  SSO_CALLBACK_PATH,
  type SsoContext,
} from './sso-service.js';
import { ssoDomainRoutes } from './sso-domain-routes.js';
import { systemTxtResolver, type TxtResolver } from './sso-domains.js';
import { ssoLinkRoutes } from './sso-link-routes.js';
import { SSO_LINK_COOKIE, SSO_LINK_COOKIE_PATH, SSO_LINK_TTL_MS } from './sso-links.js';
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
  /** Where the server may send requests: the operator's outbound address policy (as for webhooks). */
  policy: OutboundPolicy;
  /** Reads TXT records for domain verification (the system's DNS unless a test gives its own). */
  resolveTxt?: TxtResolver;
}

const redirect302 = { description: 'Redirect (see `Location`)', type: 'null' } as const;

export const ssoRoutes = routePlugin(function ssoRoutes(app: FastifyInstance, deps: SsoRouteDependencies): void {
  const { db, limiter, address } = deps;
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  const providers = new ProviderCache({ policy: deps.policy });
  const context = (request: FastifyRequest): SsoContext => ({
    db,
    tenant: tenantOf(request),
    actor: actorOf(principalOf(request)),
    ip: request.ip,
    providers,
    publicUrl: address.publicUrl,
    warn: (details, message) => request.log.warn(details, message),
  });
  const secure = (request: FastifyRequest) => deps.secureCookies || request.protocol === 'https';
  const flowCookie = (request: FastifyRequest) =>
    ({ path: SSO_FLOW_COOKIE_PATH, httpOnly: true, sameSite: 'lax', secure: secure(request) }) as const;

  /**
   * To the login page, saying why (and offering the tenant's code name again, unless another site
   * chose it: a refused cross-site start must not leave that site's organisation one click away).
   */
  const refuse = (request: FastifyRequest, reply: FastifyReply, refusal: SsoRefusal) => {
    const cause = refusal.cause instanceof DiscoveryFailed ? refusal.cause.reason : errorMessage(refusal.cause ?? '');
    request.log.warn({ reason: refusal.audit, cause }, 'single sign-on refused');
    const query = new URLSearchParams({ sso_error: refusal.reason });
    const { linkCookie } = refusal.context;
    if (linkCookie !== undefined) {
      // The person signs in with their password there, then confirms the link on that page.
      reply.setCookie(SSO_LINK_COOKIE, linkCookie, {
        path: SSO_LINK_COOKIE_PATH,
        httpOnly: true,
        sameSite: 'lax',
        secure: secure(request),
        maxAge: SSO_LINK_TTL_MS / 1000,
      });
      return reply.header('Cache-Control', 'no-store').redirect(`/account/sso-link?${query.toString()}`, 302);
    }
    const offered = refusal.reason === 'cross_site' ? undefined : refusal.tenantCode;
    if (offered !== undefined && /^[a-z0-9-]{1,63}$/.test(offered)) query.set('tenant', offered);
    return reply.header('Cache-Control', 'no-store').redirect(`/login?${query.toString()}`, 302);
  };

  ssoLinkRoutes(app, { db, cookie: (request) => ({ secure: secure(request) }) });
  ssoDomainRoutes(app, { db, resolveTxt: deps.resolveTxt ?? systemTxtResolver });

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
          "Creates or replaces the tenant's OpenID Connect settings. Discovery runs against the issuer first, under the deployment's outbound address policy (the one webhooks follow): https to public addresses only, unless the operator allows loopback or allow-listed a range. An issuer that is not a URL answers 400; an issuer the policy refuses, or a provider that cannot be reached or used, answers 422 `sso_discovery_failed` with one detail whatever the reason (the reason goes to the server log, and the attempt to the audit log), and nothing is saved.",
        body: SsoSettingsBody,
        response: {
          200: { ...SsoSettingsSchema, description: 'Saved' },
          422: problemResponse(
            'Discovery at the issuer failed or was refused; the detail is the same for every reason',
            'sso_discovery_failed',
            DISCOVERY_FAILED_DETAIL,
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
          "Sends the browser to the tenant's identity provider (authorization code flow with PKCE), remembering for ten minutes, in an encrypted httpOnly cookie, what the callback needs. An unknown tenant and one without single sign-on both redirect to the login page with `sso_error=sso_unavailable`; a sign-in another site starts (`Sec-Fetch-Site: cross-site`) with `sso_error=cross_site` and no tenant to offer again.",
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
          "The redirect URI registered at every tenant's provider. Exchanges the code, checks the id token (issuer, audience, nonce, signature), a verified, acceptable email in an allowed and verified domain, and the role, provisions (and links) the person in the tenant on first sign-in, sets the session cookie as `POST /v1/auth/login` does and redirects to the page asked for. A member with a password or a second factor of their own is signed in only once they confirmed the link: until then the callback sets the pending link cookie and redirects to `/account/sso-link?sso_error=link_required`, where they sign in with their password and confirm (`POST /v1/account/sso-link`). Refusals redirect to `/login?sso_error=<code>` and are audited as `auth.login_failed` with the reason; they count against the address's failed attempts.",
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
