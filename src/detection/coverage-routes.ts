// /v1/attack/coverage: which ATT&CK techniques the loaded rules cover for the caller's tenant,
// live or silent by the logsources its telemetry produced (detection records them per chunk:
// logsource-sightings.ts), and the same as an ATT&CK Navigator layer to download.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Tables } from '../storage/schema.js';
import { tenantOf } from '../identity/auth.js';
import { routePlugin } from '../http/route-plugin.js';
import type { AttackCatalogue } from './attack.js';
import type { RuleCompilation } from './sigma/index.js';
import { buildCoverageIndex } from './attack-coverage.js';
import { COVERAGE_WINDOW_DAYS, presentCoverage, tenantCoverage } from './coverage-service.js';
import { CoverageSchema, NavigatorLayerSchema } from './coverage-schemas.js';
import { navigatorLayer } from './navigator-layer.js';

const NoQuery = Type.Object({}, { additionalProperties: false });

export const coverageRoutes = routePlugin(function coverageRoutes(
  app: FastifyInstance,
  deps: { db: Kysely<Tables>; compilation: RuleCompilation; catalogue: AttackCatalogue },
): void {
  const index = buildCoverageIndex(deps.compilation, deps.catalogue);
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();

  routes.get(
    '/attack/coverage',
    {
      config: { access: { scope: 'tenant', permission: 'observations:read' } },
      schema: {
        tags: ['ATT&CK'],
        summary: 'ATT&CK coverage',
        description: `For every technique and sub-technique of the bundled ATT&CK catalogue, the loaded rules tagged with it and whether the tenant's telemetry produced their logsource in the last ${COVERAGE_WINDOW_DAYS} days: \`live\` (at least one covering rule's logsource was seen), \`silent\` (covered only by rules whose logsource was not seen) or \`uncovered\` (no rule). \`combined_status\` of a technique also counts its sub-techniques' rules. Tactics in matrix order with their techniques, counts, and the logsources seen.`,
        querystring: NoQuery,
        response: { 200: CoverageSchema },
      },
    },
    async (request) => presentCoverage(await tenantCoverage(deps.db, index, tenantOf(request).id, Date.now())),
  );

  routes.get(
    '/attack/coverage/navigator-layer',
    {
      config: { access: { scope: 'tenant', permission: 'observations:read' } },
      schema: {
        tags: ['ATT&CK'],
        summary: 'ATT&CK coverage as a Navigator layer',
        description: `The coverage of GET /v1/attack/coverage as an ATT&CK Navigator layer (layer format 4.5, domain enterprise-attack), served as a file download: every technique scored live 2, silent 1, uncovered 0, coloured to match the legend, with a comment and its covering rules as metadata. Open it in the ATT&CK Navigator (Open Existing Layer › Upload from local).`,
        querystring: NoQuery,
        response: { 200: NavigatorLayerSchema },
      },
    },
    async (request, reply) => {
      const tenant = tenantOf(request);
      const now = Date.now();
      const { coverage } = await tenantCoverage(deps.db, index, tenant.id, now);
      const date = new Date(now).toISOString().slice(0, 10);
      void reply.header(
        'content-disposition',
        `attachment; filename="sightline-attack-coverage-${tenant.code_name}-${date}.json"`,
      );
      return navigatorLayer(coverage, { tenantName: tenant.name, windowDays: COVERAGE_WINDOW_DAYS, generatedAt: now });
    },
  );
});
