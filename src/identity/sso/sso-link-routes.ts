// A person's own single sign-on link (/v1/account/sso-link): see it and the link waiting for
// confirmation in this browser, confirm that link after signing in with the password, or remove
// the link. The pending link itself arrives as a cookie from the single sign-on callback.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Tables } from '../../storage/schema.js';
import { AppError } from '../../core/errors.js';
import { problemResponse, Timestamp } from '../../http/schemas.js';
import { principalOf } from '../auth.js';
import { actorOf } from '../principal.js';
import { SESSION_COOKIE } from '../sessions/session-service.js';
import {
  confirmLink,
  readLinkState,
  removeLink,
  SSO_LINK_COOKIE,
  SSO_LINK_COOKIE_PATH,
  type LinkPerson,
} from './sso-links.js';

const LinkStateSchema = Type.Object(
  {
    linked: Type.Union(
      [
        Type.Object({
          issuer: Type.String({ description: 'The provider the link holds for' }),
          linked_at: Timestamp('When the link was made'),
          how: Type.String({
            description:
              '`created` (single sign-on created you), `confirmed` (you confirmed it after signing in with your password), `no_password` (you had no other way in)',
          }),
        }),
        Type.Null(),
      ],
      { description: 'Your link: single sign-on signs you in through it; null when there is none' },
    ),
    pending: Type.Union(
      [
        Type.Object({
          issuer: Type.String({ description: 'The provider that asked to sign you in' }),
          email: Type.String({ description: 'The account it asked to sign in as' }),
          expires_at: Timestamp('When the request lapses'),
        }),
        Type.Null(),
      ],
      { description: 'A link single sign-on asked for in this browser, waiting for your confirmation' },
    ),
  },
  {
    examples: [
      {
        linked: null,
        pending: {
          issuer: 'https://login.acme.example',
          email: 'ana@acme.example',
          expires_at: '2026-11-22T09:25:00.000Z',
        },
      },
    ],
  },
);

export function ssoLinkRoutes(
  app: FastifyInstance,
  deps: { db: Kysely<Tables>; cookie: (request: FastifyRequest) => { secure: boolean } },
): void {
  const { db } = deps;
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Authentication'];
  const person = (request: FastifyRequest): LinkPerson => {
    const principal = principalOf(request);
    if (principal.kind !== 'user' || principal.userId === null || principal.tenantId === null)
      throw new AppError('session_required', 'single sign-on links belong to a tenant member signed in with a session');
    return {
      db,
      tenantId: principal.tenantId,
      userId: principal.userId,
      actor: actorOf(principal),
      ip: request.ip,
      sessionCookie: request.cookies[SESSION_COOKIE],
      pendingCookie: request.cookies[SSO_LINK_COOKIE],
    };
  };
  const clearPending = { path: SSO_LINK_COOKIE_PATH, httpOnly: true, sameSite: 'lax' } as const;

  routes.get(
    '/account/sso-link',
    {
      config: { access: { scope: 'account' } },
      schema: {
        tags,
        summary: 'My single sign-on link',
        description:
          'Whether single sign-on signs you in (your link), and the link it asked for in this browser when it met your account while you have a password or a second factor of your own: confirm that one with `POST`.',
        response: { 200: { ...LinkStateSchema, description: 'Your link, and the one waiting' } },
      },
    },
    async (request) => readLinkState(person(request)),
  );

  routes.post(
    '/account/sso-link',
    {
      config: { access: { scope: 'account' } },
      schema: {
        tags,
        summary: 'Confirm the single sign-on link',
        description:
          "Links the provider's account that tried to sign in as you (the pending link this browser holds) to your account, so that single sign-on signs you in from now on. Only a sign-in with your password (and second factor) made after single sign-on asked for the link may confirm it. Audited as `sso.linked`.",
        response: {
          200: { ...LinkStateSchema, description: 'Linked' },
          404: problemResponse(
            'No link is waiting in this browser (none was asked for, it lapsed after ten minutes, or the tenant changed provider)',
            'sso_link_not_pending',
            'no single sign-on link is waiting for your confirmation here',
          ),
          403: problemResponse(
            'This session began before single sign-on asked for the link: sign in again with your password',
            'sso_link_needs_sign_in',
          ),
        },
      },
    },
    async (request, reply) => {
      const state = await confirmLink(person(request));
      reply.clearCookie(SSO_LINK_COOKIE, { ...clearPending, secure: deps.cookie(request).secure });
      return state;
    },
  );

  routes.delete(
    '/account/sso-link',
    {
      config: { access: { scope: 'account' } },
      schema: {
        tags,
        summary: 'Remove my single sign-on link',
        description:
          'Declines the link waiting in this browser and removes your link: single sign-on stops signing you in until you link again (someone without a password of their own is linked again at their next single sign-on). Audited as `sso.unlinked` when there was a link.',
        response: { 204: { description: 'Removed', type: 'null' } },
      },
    },
    async (request, reply) => {
      await removeLink(person(request));
      reply.clearCookie(SSO_LINK_COOKIE, { ...clearPending, secure: deps.cookie(request).secure });
      return reply.code(204).send(null);
    },
  );
}
