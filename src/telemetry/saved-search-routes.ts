// /v1/telemetry/saved-searches: the caller's own named telemetry searches in the tenant — list,
// save (a name saved again is replaced) and delete.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Kysely } from 'kysely';
import type { Tables } from '../storage/schema.js';
import { AppError } from '../core/errors.js';
import { principalOf, tenantOf } from '../identity/auth.js';
import { routePlugin } from '../http/route-plugin.js';
import { listSaved, MAX_SAVED_SEARCHES, ownerOf, removeSavedSearch, saveSearch } from './saved-search-service.js';
import { SavedSearchBody, SavedSearchList, SavedSearchSchema } from './saved-search-schemas.js';

const Params = Type.Object({
  saved_search_id: Type.String({ maxLength: 64, description: 'Saved search id (`ss_…`)' }),
});

export const savedSearchRoutes = routePlugin(function savedSearchRoutes(
  app: FastifyInstance,
  deps: { db: Kysely<Tables> },
): void {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = deps;
  const access = { scope: 'tenant', permission: 'telemetry:read' } as const;

  routes.get(
    '/telemetry/saved-searches',
    {
      config: { access },
      schema: {
        tags: ['Telemetry'],
        summary: 'List my saved searches',
        description:
          "The caller's saved telemetry searches in the tenant, by name. They belong to a person: a token a person created sees that person's; a token nobody created gets 403 `session_required`.",
        response: { 200: SavedSearchList },
      },
    },
    async (request) => ({
      saved_searches: await listSaved(db, ownerOf(tenantOf(request).id, principalOf(request).userId)),
    }),
  );

  routes.post(
    '/telemetry/saved-searches',
    {
      config: { access },
      schema: {
        tags: ['Telemetry'],
        summary: 'Save a search',
        description: `Saves the search under its name; saving a name again replaces that search (same id). The query must be valid (400 \`invalid_query\` otherwise). At most ${MAX_SAVED_SEARCHES} per person.`,
        body: SavedSearchBody,
        response: { 201: SavedSearchSchema },
      },
    },
    async (request, reply) => {
      const owner = ownerOf(tenantOf(request).id, principalOf(request).userId);
      return reply.code(201).send(await saveSearch(db, owner, request.body));
    },
  );

  routes.delete(
    '/telemetry/saved-searches/:saved_search_id',
    {
      config: { access },
      schema: {
        tags: ['Telemetry'],
        summary: 'Delete a saved search',
        description: "Deletes one of the caller's saved searches; anyone else's answers 404.",
        params: Params,
        response: { 204: Type.Null({ description: 'Deleted' }) },
      },
    },
    async (request, reply) => {
      const { userId } = principalOf(request);
      // Nobody's token owns no searches: the id is not found, as for anyone else's.
      if (userId === null)
        throw new AppError('not_found', `no saved search ${JSON.stringify(request.params.saved_search_id)}`);
      await removeSavedSearch(db, ownerOf(tenantOf(request).id, userId), request.params.saved_search_id);
      return reply.code(204).send(null);
    },
  );
});
