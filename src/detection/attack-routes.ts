// The MITRE ATT&CK catalogue the rules tag observations with, for look-ups in the UI (the
// technique filter's autocomplete): GET /v1/attack/techniques.
//
// Account scope, no permission: the catalogue is public reference data (MITRE publishes it)
// holding nothing of any tenant, so any signed-in caller may search it — a token of any
// permission, and an operator without naming a tenant.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AttackCatalogue } from './attack.js';
import { createTechniqueSearch } from './attack-search.js';
import { routePlugin } from '../http/route-plugin.js';

const techniqueExample = {
  id: 'T1059.004',
  name: 'Unix Shell',
  tactics: ['Execution'],
  parent: { id: 'T1059', name: 'Command and Scripting Interpreter' },
};

export const TechniqueSchema = Type.Object(
  {
    id: Type.String({ description: 'Technique id, e.g. T1059 or T1059.004' }),
    name: Type.String(),
    tactics: Type.Array(Type.String(), { description: 'Tactic names, e.g. Execution' }),
    parent: Type.Union([Type.Object({ id: Type.String(), name: Type.String() }), Type.Null()], {
      description: 'The parent technique of a sub-technique; null for a technique',
    }),
  },
  { examples: [techniqueExample] },
);

const SearchQuery = Type.Object(
  {
    q: Type.Optional(
      Type.String({
        maxLength: 100,
        description: 'Part of a technique id (from its start: `T1059`, `t1059.0`) or of its name (`shell`)',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'At most this many techniques (1-100)' }),
    ),
  },
  { additionalProperties: false },
);

export const attackRoutes = routePlugin(function attackRoutes(
  app: FastifyInstance,
  deps: { catalogue: AttackCatalogue },
): void {
  const search = createTechniqueSearch(deps.catalogue);
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();

  routes.get(
    '/attack/techniques',
    {
      config: { access: { scope: 'account' } },
      schema: {
        tags: ['ATT&CK'],
        summary: 'Search ATT&CK techniques',
        description: `The bundled MITRE ATT&CK Enterprise catalogue (the one rules and cases name techniques from), searched by id or name, case-insensitive: an exact id first, then ids starting with \`q\`, then names starting with it, then names holding it (a sub-technique also by its parent's name). Without \`q\`: techniques by id. Public reference data: any signed-in caller may search it, no tenant needed. MITRE ATT&CK® is a registered trademark of The MITRE Corporation.`,
        querystring: SearchQuery,
        response: {
          200: Type.Object(
            {
              techniques: Type.Array(TechniqueSchema),
              attack_version: Type.String({ description: 'The ATT&CK release of the catalogue' }),
            },
            {
              description: 'Matching techniques, best first',
              examples: [{ techniques: [techniqueExample], attack_version: '18.1' }],
            },
          ),
        },
      },
    },
    (request) => ({
      techniques: search.search(request.query.q, request.query.limit ?? 20),
      attack_version: search.version,
    }),
  );
});
