// GET /v1/collector: the tenant's collector address and what it received in the last 24 hours,
// hour by hour (Settings › Collector). The counts say how much telemetry arrived, so reading
// them needs what reading that telemetry needs: telemetry:read.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Database } from '../../storage/database.js';
import { tenantOf } from '../../identity/auth.js';
import { Timestamp } from '../../http/schemas.js';
import { routePlugin } from '../../http/route-plugin.js';
import { collectorUrl, type CollectorAddressSettings } from '../../identity/tenants/tenant-service.js';
import { BUCKETS, HourlyCountCache, receivedStats } from './collector-stats.js';

// 24 hours to 2026-11-24T10:42Z: quiet overnight, busy in the working hours.
const exampleCounts = Array.from({ length: 24 }, (_, i) =>
  i < 8 ? 9_500 + i * 40 : i < 20 ? 1_200 + i * 15 : 18_000 + i * 100,
);
const exampleBuckets = exampleCounts.map((records, i) => ({
  start: new Date(Date.UTC(2026, 10, 23, 11 + i)).toISOString(),
  records,
}));

const collectorExample = {
  collector_url: 'https://acme-collector.sightline.example',
  received: {
    since: '2026-11-23T11:00:00.000Z',
    until: '2026-11-24T10:42:17.512Z',
    bucket_seconds: 3600,
    buckets: exampleBuckets,
    total_records: exampleCounts.reduce((sum, n) => sum + n, 0),
    last_received_at: '2026-11-24T10:42:16.903Z',
  },
};

export const CollectorStatsSchema = Type.Object(
  {
    collector_url: Type.String({ description: "Where the tenant's forwarders POST /log_sink (as in GET /v1/tenant)" }),
    received: Type.Object({
      since: Timestamp('Start of the first bucket: the hour 23 hours before the current one'),
      until: Timestamp('When the counts were taken (the end of the last, current bucket)'),
      bucket_seconds: Type.Integer({ description: 'Length of a bucket: 3600 (one hour)' }),
      buckets: Type.Array(
        Type.Object({
          start: Timestamp('Start of the hour'),
          records: Type.Integer({ description: 'Records received (server receive time) in that hour' }),
        }),
        {
          minItems: BUCKETS,
          maxItems: BUCKETS,
          description: '24 hourly buckets, oldest first, empty hours included; the last is the current hour so far',
        },
      ),
      total_records: Type.Integer({ description: 'Records received from `since` to `until` (the sum of the buckets)' }),
      last_received_at: Type.Union([Timestamp('Receive time of the newest record, however old'), Type.Null()], {
        description: 'null: nothing received yet',
      }),
    }),
  },
  { examples: [collectorExample] },
);

export const collectorStatsRoutes = routePlugin(function collectorStatsRoutes(
  app: FastifyInstance,
  deps: { database: Database; address: CollectorAddressSettings },
): void {
  const { database, address } = deps;
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  const cache = new HourlyCountCache();

  routes.get(
    '/collector',
    {
      config: { access: { scope: 'tenant', permission: 'telemetry:read' } },
      schema: {
        tags: ['Telemetry'],
        summary: 'Collector address and records received',
        description:
          "The tenant's collector address and how many records it received in each of the last 24 hours (by server receive time, empty hours included), with the total and the time of the newest record.",
        response: { 200: { ...CollectorStatsSchema, description: 'The collector and its last 24 hours' } },
      },
    },
    async (request) => {
      const tenant = tenantOf(request);
      return {
        collector_url: collectorUrl(address, tenant.code_name),
        received: await receivedStats(database, tenant.id, cache),
      };
    },
  );
});
