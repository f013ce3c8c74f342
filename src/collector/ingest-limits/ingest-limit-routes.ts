// Per-tenant ingest limits over the API: platform operators read, set and clear them under
// /v1/tenants/{code_name}/ingest-limits (audited in the tenant's log); a tenant reads its own at
// /v1/collector/ingest-limits with the permission Settings › Collector already needs. A change
// applies to this process's collector at once and to every other node within RELOAD_MS.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Tables } from '../../storage/schema.js';
import { principalOf, tenantOf } from '../../identity/auth.js';
import { actorOf } from '../../identity/principal.js';
import { problemResponse, Timestamp } from '../../http/schemas.js';
import { routePlugin } from '../../http/route-plugin.js';
import { requireTenantByCodeName } from '../../identity/tenants/tenant-service.js';
import type { IngestLimits } from './ingest-limiter.js';
import { limitsOfRow, MAX_LIMIT, presentIngestLimits, setIngestLimits } from './ingest-limit-service.js';
import { countLiveCollectorNodes, findIngestLimits } from './ingest-limit-store.js';
import { LIVE_MS } from './ingest-limit-sync.js';

const limitsExample = {
  records_per_second: 5000,
  records_burst: 20000,
  bytes_per_second: 5_000_000,
  bytes_burst: 20_000_000,
  updated_at: '2026-11-22T09:15:00.000Z',
  updated_by: 'ops@example.com',
};

// One schema with both types, not a union: with type coercion on, a 0 failing the integer branch
// would be coerced to null by the other and silently turn the limit off.
const Limit = (description: string) =>
  Type.Unsafe<number | null>({ type: ['integer', 'null'], minimum: 1, maximum: MAX_LIMIT, description });

const LimitFields = {
  records_per_second: Limit('Records per second the collector accepts for the tenant; null: no limit'),
  records_burst: Limit('Records accepted at once above the rate (the bucket size); defaults to the rate'),
  bytes_per_second: Limit('Decoded (decompressed) body bytes per second; null: no limit'),
  bytes_burst: Limit('Decoded bytes accepted at once; defaults to the rate. A request above it is refused with 413'),
};

export const IngestLimitsSchema = Type.Object(
  {
    ...LimitFields,
    updated_at: Type.Union([Timestamp('When they were last set'), Type.Null()]),
    updated_by: Type.Union([Type.String(), Type.Null()], { description: 'Who set them; null: never set' }),
  },
  { description: "The tenant's collector ingest limits (all null: none, the default)", examples: [limitsExample] },
);

const OperatorLimitsSchema = Type.Object(
  {
    ...IngestLimitsSchema.properties,
    collector_nodes: Type.Integer({
      minimum: 1,
      description: 'Collector nodes running now: each accepts the rates divided by this number (the bursts whole)',
    }),
  },
  { description: 'The limits, and the nodes sharing them', examples: [{ ...limitsExample, collector_nodes: 1 }] },
);

const SetLimitsBody = Type.Object(
  Object.fromEntries(Object.entries(LimitFields).map(([name, schema]) => [name, Type.Optional(schema)])),
  {
    additionalProperties: false,
    description: 'The limits in full: a rate absent or null turns that limit off',
    examples: [{ records_per_second: 5000, records_burst: 20000 }],
  },
);

const CodeNameParams = Type.Object({ code_name: Type.String({ maxLength: 63, description: 'Tenant code name' }) });
const notFound = problemResponse(
  'No tenant has this code name',
  'tenant_not_found',
  'no tenant has the code name "acme"',
);

export interface IngestLimitRouteDependencies {
  db: Kysely<Tables>;
  /** Several processes may share the database: count their collectors. */
  shared: boolean;
  /** This process's collector, when it runs one: told of a change at once. */
  applied?: (tenantId: number, limits: IngestLimits | undefined) => void;
}

export const ingestLimitRoutes = routePlugin(function ingestLimitRoutes(
  app: FastifyInstance,
  deps: IngestLimitRouteDependencies,
): void {
  const { db } = deps;
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  const operator = { access: { scope: 'operator' } } as const;
  const tags = ['Tenants'];
  const nodes = async () => (deps.shared ? Math.max(1, await countLiveCollectorNodes(db, Date.now() - LIVE_MS, 0)) : 1);
  const present = async (tenantId: number) => ({
    ...presentIngestLimits(await findIngestLimits(db, tenantId)),
    collector_nodes: await nodes(),
  });

  routes.get(
    '/tenants/:code_name/ingest-limits',
    {
      config: operator,
      schema: {
        tags,
        summary: "Get a tenant's ingest limits",
        description: 'The records and bytes per second its collector accepts, with their bursts. Off by default.',
        params: CodeNameParams,
        response: { 200: OperatorLimitsSchema, 404: notFound },
      },
    },
    async (request) => present((await requireTenantByCodeName(db, request.params.code_name)).id),
  );

  routes.put(
    '/tenants/:code_name/ingest-limits',
    {
      config: operator,
      schema: {
        tags,
        summary: "Set a tenant's ingest limits",
        description:
          "Replaces the tenant's limits. Over a limit POST /log_sink answers 429 rate_limited with Retry-After and stores nothing from that request; a request larger than a burst is answered 413 request_exceeds_burst. In effect on every collector node within 2 s; recorded in the tenant's audit log.",
        params: CodeNameParams,
        body: SetLimitsBody,
        response: { 200: OperatorLimitsSchema, 404: notFound },
      },
    },
    async (request) => {
      const tenant = await requireTenantByCodeName(db, request.params.code_name);
      const body = request.body as Record<string, number | null | undefined>;
      const row = await setIngestLimits(
        { db, tenantId: tenant.id, actor: actorOf(principalOf(request)), ip: request.ip },
        {
          recordsPerSecond: body.records_per_second,
          recordsBurst: body.records_burst,
          bytesPerSecond: body.bytes_per_second,
          bytesBurst: body.bytes_burst,
        },
      );
      deps.applied?.(tenant.id, row ? limitsOfRow(row) : undefined);
      return present(tenant.id);
    },
  );

  routes.delete(
    '/tenants/:code_name/ingest-limits',
    {
      config: operator,
      schema: {
        tags,
        summary: "Remove a tenant's ingest limits",
        description: "The tenant's collector accepts whatever it is sent again (the default). Audited.",
        params: CodeNameParams,
        response: { 200: OperatorLimitsSchema, 404: notFound },
      },
    },
    async (request) => {
      const tenant = await requireTenantByCodeName(db, request.params.code_name);
      await setIngestLimits({ db, tenantId: tenant.id, actor: actorOf(principalOf(request)), ip: request.ip }, {});
      deps.applied?.(tenant.id, undefined);
      return present(tenant.id);
    },
  );

  routes.get(
    '/collector/ingest-limits',
    {
      config: { access: { scope: 'tenant', permission: 'telemetry:read' } },
      schema: {
        tags: ['Telemetry'],
        summary: "This tenant's ingest limits",
        description:
          'What the platform operator set: over a limit the collector answers 429 with Retry-After. Read-only here; ask the operator to change them.',
        response: { 200: IngestLimitsSchema },
      },
    },
    async (request) => presentIngestLimits(await findIngestLimits(db, tenantOf(request).id)),
  );
});
