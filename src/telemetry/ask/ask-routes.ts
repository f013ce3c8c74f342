// POST /v1/telemetry/ask: a question in plain words in, a proposed search out (query, time range,
// explanation). Nothing is searched: the analyst runs or edits the proposal. docs/search.md,
// Questions in plain words.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Tables } from '../../storage/schema.js';
import { tenantOf } from '../../identity/auth.js';
import { routePlugin } from '../../http/route-plugin.js';
import { problemResponse, Timestamp } from '../../http/schemas.js';
import { MAX_QUERY_LENGTH } from '../telemetry-query.js';
import { askQuestion } from './ask-service.js';
import type { AskModelFor } from './ask-model.js';
import { MAX_QUESTION_LENGTH } from './query-proposal.js';

const AskBody = Type.Object(
  {
    question: Type.String({
      minLength: 1,
      maxLength: MAX_QUESTION_LENGTH,
      description: 'The question, in plain words',
    }),
  },
  { additionalProperties: false, examples: [{ question: 'failed sudo on web-01 since yesterday' }] },
);

export const AskResponse = Type.Object(
  {
    query: Type.String({
      maxLength: MAX_QUERY_LENGTH,
      description: 'A query in the telemetry query language that parses; empty matches every record',
    }),
    since: Type.Union([Timestamp('Receive time from (inclusive)'), Type.Null()]),
    until: Type.Union([Timestamp('Receive time before (exclusive)'), Type.Null()]),
    explanation: Type.String({ description: "The model's one-sentence account of what the search finds" }),
  },
  {
    description: 'The proposed search, not yet run',
    examples: [
      {
        query: 'host:web-01 AND process:sudo AND "authentication failure"',
        since: '2026-11-21T00:00:00.000Z',
        until: null,
        explanation: 'sudo authentication failures on web-01 since the start of yesterday.',
      },
    ],
  },
);

export const askRoutes = routePlugin(function askRoutes(
  app: FastifyInstance,
  deps: { db: Kysely<Tables>; modelFor: AskModelFor },
): void {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  routes.post(
    '/telemetry/ask',
    {
      config: { access: { scope: 'tenant', permission: 'telemetry:read' } },
      schema: {
        tags: ['Telemetry'],
        summary: 'Propose a search for a question',
        description:
          "Turns a question in plain words into a proposed search: a query that the query parser accepts, a time range and an explanation. Nothing is searched: show it to the analyst, who runs or edits it. The tenant's AI provider (the one its case summaries use; a language model, not the builtin summariser) receives the question, the current time, a summary of the query language and the field names of the tenant's recent records, never record contents. An answer the parser refuses is sent back to the model once with the parser's message.",
        body: AskBody,
        response: {
          200: AskResponse,
          403: problemResponse('AI features are turned off for this tenant (opt-out)', 'ai_summaries_disabled'),
          422: problemResponse('The model proposed no usable search, twice', 'question_not_understood'),
          502: problemResponse('The provider failed (after its retries)', 'provider_error'),
          503: problemResponse('The tenant has no language model configured', 'ai_provider_not_configured'),
          504: problemResponse('The provider did not answer in time (after its retries)', 'provider_timeout'),
        },
      },
    },
    async (request) => askQuestion(deps, tenantOf(request), request.body.question),
  );
});
