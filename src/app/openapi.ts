// The OpenAPI 3.1 document, generated from the route schemas (never written by hand), and the
// interactive reference at /docs: Swagger UI with its assets served from the package (no CDN),
// behind HTTP Basic with any username and an API token as the password (docs/api.md).
import fs from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import fastifyPlugin from 'fastify-plugin';
import type { Kysely } from 'kysely';
import type { Tables } from '../storage/schema.js';
import { AppError } from '../core/errors.js';
import type { FailureLimiter } from '../identity/throttling/failure-limiter.js';
import { checkToken } from '../identity/tokens/token-service.js';
import { presentedToken, securitySchemes } from '../identity/auth.js';
import { ProblemSchema } from '../http/schemas.js';
import { sendProblem } from '../http/error-handler.js';

const packageJson = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

const description = `The Sightline REST API: cases, devices, observations, raw telemetry, AI case summaries and API tokens.

**Authentication.** Send an API token as \`Authorization: Bearer slt_…\`, or as the password of HTTP Basic with any username. Create tokens in the web UI under *Settings > Integrations > API Configuration*, or with \`sightline token create\`. Each token carries permissions; a call lacking one answers 403 naming the permission. In this reference, use **Authorize** and paste the token into the *Personal Access Token* field; **Try it out** then runs against this server's real data and shows the cURL command.

**Errors** are RFC 9457 \`application/problem+json\` bodies with a stable \`code\`; branch on the code, not the text. **Lists** are paginated with \`limit\` and an opaque \`cursor\`: pass \`next_cursor\` back until it is null. Fields are snake_case; times are ISO 8601 in UTC.

**Tenancy.** A call acts in the caller's tenant; objects of other tenants answer 404. Platform operators name the tenant in the \`Sightline-Tenant\` header. A partner's token (a managed security provider serving several tenants) names one of its tenants there too, or leaves it out on \`POST /v1/cases\` and \`GET /v1/cases/{case_id}\` to act across all of them.`;

export const tags = [
  { name: 'Authentication', description: 'Sign-in for people (web sessions) and who is calling' },
  { name: 'API tokens', description: 'Tokens for integrations: created once, shown once, listed forever' },
  { name: 'Audit log', description: 'Security-relevant events of the tenant' },
  {
    name: 'Collector ingest keys',
    description: 'Credentials forwarders send to the collector, and whether it requires one',
  },
  { name: 'Telemetry', description: 'The raw records the collector stored' },
  { name: 'Tenants', description: 'Customer organisations (platform operators)' },
  { name: 'Partners', description: 'Managed security providers that serve several tenants (platform operators)' },
];

/** Registered before any route, at the root (not encapsulated), so that it sees them all. */
export const registerOpenApi = fastifyPlugin(async function openApi(app: FastifyInstance): Promise<void> {
  app.addSchema(ProblemSchema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Sightline API', version: packageJson.version, description },
      tags,
      components: { securitySchemes: structuredClone(securitySchemes) as never },
    },
    // Shared schemas keep their own names ($id) in components.schemas.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    // The document describes /v1; the collector and health endpoints have their own contract.
    transform: ({ schema, url }) => ({ schema: url.startsWith('/v1/') ? schema : { ...schema, hide: true }, url }),
  });
});

/**
 * Swagger UI names the bearer scheme by its component key and, on opening the Authorize dialog,
 * focuses the apiKey field (the session cookie's), scrolled below the others. This names
 * it "Personal Access Token", as the token pages of the UI do, and puts the cursor in its field, where the
 * token belongs. A fresh heading appears each time the dialog opens, so both happen each time.
 */
const relabelScript = `new MutationObserver(function () {
  document.querySelectorAll('.auth-container h4 code').forEach(function (el) {
    if (el.textContent !== 'PersonalAccessToken') return;
    el.textContent = 'Personal Access Token';
    var input = el.closest('.auth-container').querySelector('input');
    if (input) input.focus();
  });
}).observe(document.documentElement, { childList: true, subtree: true });`;

export interface DocsDependencies {
  db: Kysely<Tables>;
  limiter: FailureLimiter;
}

export async function registerDocsSite(app: FastifyInstance, deps: DocsDependencies): Promise<void> {
  const { db, limiter } = deps;
  const challenge = (reply: FastifyReply, detail: string) => {
    reply.header('WWW-Authenticate', 'Basic realm="Sightline API reference", charset="UTF-8"');
    return sendProblem(reply, new AppError('unauthenticated', detail));
  };
  const requireToken = async (request: FastifyRequest, reply: FastifyReply) => {
    // The page lives under /docs/: a Basic challenge at /docs would make browsers send the
    // credentials to every path of the site.
    if (request.url === '/docs') return reply.redirect('/docs/', 301);
    const token = presentedToken(request.headers.authorization);
    if (!token)
      return challenge(
        reply,
        'the API reference needs HTTP Basic credentials: any username, and an API token as the password',
      );
    // As on the API: a locked-out address is refused guesses, not its known tokens.
    const refusal = await limiter.lockedOut(request.ip);
    const check = await checkToken(db, token, request.ip);
    if (check.ok) return undefined;
    if (!refusal && check.code === 'invalid_credentials') await limiter.attempt(request.ip);
    if (refusal) throw refusal;
    return challenge(reply, 'the password is not an active API token');
  };
  // On this plugin's context, so it covers every route Swagger UI adds: the page, the document
  // and the static assets alike.
  // An answered challenge returns the reply, which ends the request there.
  app.addHook('onRequest', requireToken);
  // No other site may frame the reference (clickjacking its Authorize dialog), as with the web UI:
  // X-Frame-Options for older browsers, frame-ancestors in the policy Swagger UI sets for the rest.
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('X-Frame-Options', 'DENY');
    return payload;
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: true,
    transformStaticCSP: (policy) => policy.replace("frame-ancestors 'self'", "frame-ancestors 'none'"),
    // BaseLayout drops Swagger UI's top bar: its "Explore" box invites loading other documents
    // and its inline SVG logo carries a <style> that the static CSP (rightly) blocks.
    // Swagger UI cannot send a cookie of its own, and Basic-with-token repeats the bearer
    // option: its Authorize dialog offers the Personal Access Token alone (docs/api.md). The
    // document at /v1/openapi.json keeps every scheme for code generators.
    transformSpecification: (document) => {
      const spec = document as {
        components?: { securitySchemes?: Record<string, unknown> };
        paths?: Record<string, Record<string, { security?: unknown }>>;
      };
      if (spec.components?.securitySchemes)
        spec.components.securitySchemes = { PersonalAccessToken: spec.components.securitySchemes.PersonalAccessToken };
      // The partner operations (an operator's, documented in docs/api.md and in /v1/openapi.json)
      // stay out of this page: with them Swagger UI stops rendering the operation list part way.
      if (spec.paths)
        spec.paths = Object.fromEntries(
          Object.entries(spec.paths).filter(([path]) => !path.startsWith('/v1/partners')),
        );
      for (const operations of Object.values(spec.paths ?? {})) {
        for (const operation of Object.values(operations))
          if (operation.security) operation.security = [{ PersonalAccessToken: [] }];
      }
      return document;
    },
    uiConfig: {
      layout: 'BaseLayout',
      deepLinking: true,
      displayRequestDuration: true,
      persistAuthorization: false,
      tryItOutEnabled: false,
    },
    theme: { title: 'Sightline API reference', js: [{ filename: 'personal-access-token.js', content: relabelScript }] },
  });
}
