// The optional second factor of sign-in (TOTP with recovery codes): a signed-in person sets it
// up, turns it off and regenerates recovery codes for themselves under /v1/me/second-factor;
// a tenant admin removes a user's with DELETE /v1/users/{user_id}/second-factor (a lost phone).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Tables } from '../../storage/schema.js';
import { AppError } from '../../core/errors.js';
import { routePlugin } from '../../http/route-plugin.js';
import { problemResponse } from '../../http/schemas.js';
import { principalOf, tenantOf } from '../auth.js';
import type { FailureLimiter } from '../throttling/failure-limiter.js';
import { MAX_PASSWORD_LENGTH } from '../users/password.js';
import { actorOf } from '../principal.js';
import {
  confirmEnrolment,
  disableOwnSecondFactor,
  regenerateRecoveryCodes,
  resetSecondFactor,
  startEnrolment,
  type SelfContext,
} from './second-factor-service.js';

export interface SecondFactorRouteDependencies {
  db: Kysely<Tables>;
  /** Wrong passwords given to turn the second factor off count against the address, like sign-in's. */
  limiter: FailureLimiter;
}

const recoveryExample = ['7kq2m-x9d4p', 'b3w8n-5hc1t'];

const EnrolmentSchema = Type.Object(
  {
    secret: Type.String({ description: 'The TOTP secret in base32, for typing into an authenticator app' }),
    otpauth_uri: Type.String({ description: 'The same as an `otpauth://totp/` URI, for a QR code' }),
  },
  {
    description: 'A pending second factor: confirm it with a first code',
    examples: [
      {
        secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
        otpauth_uri:
          'otpauth://totp/Sightline:alice%40example.com?issuer=Sightline&secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30',
      },
    ],
  },
);

const RecoveryCodesSchema = Type.Object(
  {
    recovery_codes: Type.Array(Type.String(), {
      description: 'Ten codes, each usable once instead of an app code; shown only in this answer',
    }),
  },
  { examples: [{ recovery_codes: recoveryExample }] },
);

const PasswordField = Type.String({ maxLength: MAX_PASSWORD_LENGTH, description: "The account's password" });

const ConfirmBody = Type.Object(
  {
    code: Type.String({ pattern: '^[0-9]{6}$', description: 'The 6 digits the authenticator app shows now' }),
    password: PasswordField,
  },
  { additionalProperties: false, examples: [{ code: '492039', password: 'correct horse battery staple' }] },
);

const PasswordBody = Type.Object(
  { password: PasswordField },
  { additionalProperties: false, examples: [{ password: 'correct horse battery staple' }] },
);

const UserParams = Type.Object({ user_id: Type.String({ maxLength: 64, description: 'User id (`usr_…`)' }) });

const tokenRefusal = problemResponse(
  'Forbidden: an API token called (`session_required`), or a session-cookie write came without its CSRF token',
  'session_required',
  "an API token cannot manage a person's second factor; sign in",
);
const wrongPassword = problemResponse(
  'Forbidden: the password is wrong (`password_incorrect`), an API token called (`session_required`), or a session-cookie write came without its CSRF token',
  'password_incorrect',
  'the password is wrong',
);
const notEnabled = problemResponse(
  'No second factor is on for this account',
  'second_factor_not_enabled',
  'no second factor is on for this account',
);

/** The caller as a person acting on themselves; API tokens may not manage a person's second factor. */
function selfOf(db: Kysely<Tables>, request: FastifyRequest): SelfContext {
  const principal = principalOf(request);
  if (principal.kind !== 'user') {
    throw new AppError('session_required', "an API token cannot manage a person's second factor; sign in");
  }
  return {
    db,
    tenantId: principal.tenantId,
    userId: principal.id,
    email: principal.label,
    actor: actorOf(principal),
    ip: request.ip,
  };
}

export const secondFactorRoutes = routePlugin(function secondFactorRoutes(
  app: FastifyInstance,
  deps: SecondFactorRouteDependencies,
): void {
  const { db, limiter } = deps;
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Second factor'];
  const tokenRefused =
    'Only a person signed in with the web session may call this; an API token answers 403 `session_required`.';

  /** Runs a password-checked change; a wrong password counts against the address like a failed sign-in. */
  const withPassword = <T>(request: FastifyRequest, work: () => Promise<T>): Promise<T> =>
    limiter.guard(request.ip, work, (error) => error instanceof AppError && error.code === 'password_incorrect');

  routes.post(
    '/me/second-factor',
    {
      config: { access: { scope: 'account' } },
      schema: {
        tags,
        summary: 'Start setting up a second factor',
        description: `Makes a new TOTP secret (RFC 6238: SHA-1, 6 digits, 30 s) for the caller and returns it once, as base32 and as an \`otpauth://\` URI for a QR code. Nothing changes at sign-in until POST /v1/me/second-factor/confirm; starting again replaces an unconfirmed secret. ${tokenRefused}`,
        response: {
          200: { ...EnrolmentSchema, description: 'The pending secret' },
          403: tokenRefusal,
          409: problemResponse(
            'A second factor is already on',
            'second_factor_already_enabled',
            'a second factor is already on; turn it off first to enrol another authenticator',
          ),
        },
      },
    },
    async (request, reply) => {
      reply.header('Cache-Control', 'no-store');
      return startEnrolment(selfOf(db, request));
    },
  );

  routes.post(
    '/me/second-factor/confirm',
    {
      config: { access: { scope: 'account' } },
      schema: {
        tags,
        summary: 'Turn the second factor on',
        description: `Checks the account's password and a first code from the authenticator app against the pending secret, and turns the second factor on: from now on sign-in asks for a code. Returns ten recovery codes, each usable once instead of a code; they are stored only hashed and never shown again. A wrong password answers 403 \`password_incorrect\` and counts as a failed attempt from the address; a wrong code answers 400 \`invalid_request\` with \`reason: wrong_code\`. ${tokenRefused}`,
        body: ConfirmBody,
        response: {
          200: { ...RecoveryCodesSchema, description: 'On; the recovery codes, shown once' },
          403: wrongPassword,
          409: notEnabled,
        },
      },
    },
    async (request, reply) => {
      const self = selfOf(db, request);
      reply.header('Cache-Control', 'no-store');
      const { code, password } = request.body;
      return { recovery_codes: await withPassword(request, () => confirmEnrolment(self, code, password)) };
    },
  );

  routes.post(
    '/me/second-factor/recovery-codes',
    {
      config: { access: { scope: 'account' } },
      schema: {
        tags,
        summary: 'Regenerate recovery codes',
        description: `Replaces the caller's recovery codes with ten new ones (the old ones stop working) and returns them once. Needs the account's password; a wrong one counts as a failed attempt from the address. ${tokenRefused}`,
        body: PasswordBody,
        response: {
          200: { ...RecoveryCodesSchema, description: 'The new recovery codes, shown once' },
          403: wrongPassword,
          409: notEnabled,
        },
      },
    },
    async (request, reply) => {
      const self = selfOf(db, request);
      reply.header('Cache-Control', 'no-store');
      return {
        recovery_codes: await withPassword(request, () => regenerateRecoveryCodes(self, request.body.password)),
      };
    },
  );

  routes.delete(
    '/me/second-factor',
    {
      config: { access: { scope: 'account' } },
      schema: {
        tags,
        summary: 'Turn the second factor off',
        description: `Removes the caller's second factor and recovery codes: sign-in asks for the password alone again. Needs the account's password; a wrong one counts as a failed attempt from the address. ${tokenRefused}`,
        body: PasswordBody,
        response: {
          204: { description: 'Turned off', type: 'null' },
          403: wrongPassword,
          409: notEnabled,
        },
      },
    },
    async (request, reply) => {
      const self = selfOf(db, request);
      await withPassword(request, () => disableOwnSecondFactor(self, request.body.password));
      return reply.code(204).send(null);
    },
  );

  routes.delete(
    '/users/:user_id/second-factor',
    {
      config: { access: { scope: 'tenant', permission: 'users:write' } },
      schema: {
        tags,
        summary: "Remove a user's second factor",
        description:
          "For a user of the tenant who lost their authenticator: removes their second factor and recovery codes, so they sign in with the password alone and can set up a new one. Removing one that is not there changes nothing. Audited as `second_factor.disabled` with `reset_by_admin`. A signed-in admin only: an API token gets 403 `session_required` (a leaked token must not open a way into a person's account).",
        params: UserParams,
        response: { 204: { description: 'The user has no second factor now', type: 'null' } },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      await resetSecondFactor(db, tenantOf(request).id, request.params.user_id, {
        actor: actorOf(principal),
        ip: request.ip,
      });
      return reply.code(204).send(null);
    },
  );
});
