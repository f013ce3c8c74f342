// /v1/cases/{case_id}/summary: generate or regenerate (explicitly: reading never generates),
// read the current one, and rate it.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf, tenantOf } from '../identity/auth.js';
import { problemResponse, Timestamp } from '../http/schemas.js';
import { CaseParams } from '../cases/case-schemas.js';
import { findOwnRating, generateSummary, getSummary, rateSummary, type SummaryDeps } from './summary-service.js';
import { SummarySchema } from './summary-schemas.js';

const Rating = Type.Union([Type.Literal('up'), Type.Literal('down')]);

/** The caller's current rating of a summary; rating null until they rate it. */
export const OwnRatingSchema = Type.Object(
  {
    summary_id: Type.String(),
    rating: Type.Union([Rating, Type.Null()]),
    comment: Type.Union([Type.String(), Type.Null()]),
    rated_at: Type.Union([Timestamp('When you last rated it'), Type.Null()]),
  },
  {
    description: 'Your current rating, or rating null',
    examples: [
      {
        summary_id: 'sum_8Hq2',
        rating: 'down',
        comment: 'The timeline misses the first login.',
        rated_at: '2026-11-24T10:02:11.000Z',
      },
    ],
  },
);

const disabled = problemResponse('AI summaries are turned off for this tenant (opt-out)', 'ai_summaries_disabled');

export async function summaryRoutes(app: FastifyInstance, deps: SummaryDeps): Promise<void> {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();

  routes.post(
    '/cases/:case_id/summary',
    {
      config: { access: { scope: 'tenant', permission: 'summaries:write', also: ['cases:read'] } },
      schema: {
        tags: ['Summaries'],
        summary: 'Generate a case summary',
        description:
          "Generates the case's AI summary, or regenerates it, replacing the previous one (a summary never updates itself). The model sees only the case information, its devices (with IP country and city) and their processes, a bounded subset of each observation's endpoint-process and network-process events, and the customer's code name. Model input and output are cached for up to 24 hours: regenerating an unchanged case is answered from the cache. The provider is the deployment's (`builtin` by default, not an LLM) unless an operator set one for the tenant. Summaries can be inaccurate: verify critical facts.",
        params: CaseParams,
        // No body: the call takes none (curl -X POST, a button).
        response: {
          201: SummarySchema,
          403: disabled,
          502: problemResponse('The provider failed (after its retries)', 'provider_error'),
          503: problemResponse("The tenant's provider has no model configured", 'summary_provider_not_configured'),
          504: problemResponse('The provider did not answer in time (after its retries)', 'provider_timeout'),
        },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await generateSummary(deps, tenantOf(request), request.params.case_id, principalOf(request))),
  );

  routes.get(
    '/cases/:case_id/summary',
    {
      config: { access: { scope: 'tenant', permission: 'summaries:read', also: ['cases:read'] } },
      schema: {
        tags: ['Summaries'],
        summary: 'Get the case summary',
        description:
          "The case's current summary, with `stale: true` and the reasons when the case changed since it was generated. Never generates one: 404 `summary_not_generated` until someone does.",
        params: CaseParams,
        response: {
          200: SummarySchema,
          403: disabled,
          404: problemResponse('No summary was generated for this case yet', 'summary_not_generated'),
        },
      },
    },
    async (request) => getSummary(deps.db, tenantOf(request), request.params.case_id),
  );

  routes.post(
    '/cases/:case_id/summary/feedback',
    {
      config: { access: { scope: 'tenant', permission: 'summaries:write', also: ['cases:read'] } },
      schema: {
        tags: ['Summaries'],
        summary: 'Rate the case summary',
        description:
          'Thumbs up, or thumbs down with an optional comment. One current rating per user and summary: rating again replaces it. Kept with your internal user id and copied to the monitoring provider.',
        params: CaseParams,
        body: Type.Object(
          {
            rating: Rating,
            comment: Type.Optional(
              Type.String({ minLength: 1, maxLength: 2_000, description: 'Only with a thumbs down' }),
            ),
          },
          {
            additionalProperties: false,
            examples: [{ rating: 'down', comment: 'The timeline misses the first login.' }, { rating: 'up' }],
          },
        ),
        response: {
          200: Type.Object(
            {
              summary_id: Type.String(),
              rating: Rating,
              comment: Type.Union([Type.String(), Type.Null()]),
              rated_at: Timestamp('When'),
            },
            { description: 'Your current rating of the summary' },
          ),
          403: disabled,
          404: problemResponse('No summary was generated for this case yet', 'summary_not_generated'),
        },
      },
    },
    async (request) => rateSummary(deps, tenantOf(request), request.params.case_id, principalOf(request), request.body),
  );
  routes.get(
    '/cases/:case_id/summary/feedback',
    {
      config: { access: { scope: 'tenant', permission: 'summaries:read', also: ['cases:read'] } },
      schema: {
        tags: ['Summaries'],
        summary: 'Get your rating of the case summary',
        description:
          "Your own current rating of the case's current summary (the signed-in user's, or for an API token its creator's), so a client can show it; `rating` is null until you rate it. Others' ratings are not shown.",
        params: CaseParams,
        response: {
          200: OwnRatingSchema,
          403: disabled,
          404: problemResponse('No summary was generated for this case yet', 'summary_not_generated'),
        },
      },
    },
    async (request) => findOwnRating(deps.db, tenantOf(request), request.params.case_id, principalOf(request)),
  );
}
