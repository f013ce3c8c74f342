// GET /v1/collector/diagnostics: who sent the tenant's collector what in the last 24 hours (by
// User-Agent and source address) and which requests it refused, by code, with the latest
// example; POST /v1/collector/test-record sends one record through the tenant's real collector
// path (routing by Host, parsing, durable commit) and says how long the round trip took. It
// passes the ingest-key requirement, so it needs ingest_keys:write (whoever holds it can make a
// key anyway) and is audited.
import { recordId } from '../../core/record-ids.js';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Database } from '../../storage/database.js';
import { principalOf, tenantOf } from '../../identity/auth.js';
import { actorOf } from '../../identity/principal.js';
import { recordAudit } from '../../identity/audit/audit-service.js';
import { problemResponse, Timestamp } from '../../http/schemas.js';
import { routePlugin } from '../../http/route-plugin.js';
import { newId } from '../../core/ids.js';
import { AppError } from '../../core/errors.js';
import { collectorUrl, type CollectorAddressSettings } from '../../identity/tenants/tenant-service.js';
import { findStoredText, logEnd } from '../../telemetry/telemetry-store.js';
import { HOUR_MS, type CollectorDiagnostics } from './collector-diagnostics.js';
import { rejections, senders } from './diagnostics-store.js';
import type { CollectorTenants } from '../intake/tenant-routing.js';
import type { IngestKeyGate } from '../ingest-keys/ingest-key-gate.js';

const MAX_SENDERS = 100;

export const DiagnosticsSchema = Type.Object(
  {
    since: Timestamp('Start of the first hour counted (23 hours before the current one)'),
    senders: Type.Array(
      Type.Object({
        protocol: Type.String({
          description:
            'The intake it used: `log_sink` (POST /log_sink), `otlp` (OTLP/HTTP logs), `hec` (Splunk HEC) or `bulk` (Elasticsearch bulk)',
          examples: ['log_sink'],
        }),
        user_agent: Type.String({ description: "The sender's User-Agent header ('' when it sent none)" }),
        source_address: Type.String({ description: 'Client address (behind a trusted proxy, from X-Forwarded-For)' }),
        requests: Type.Integer({ description: 'Requests accepted (201)' }),
        records: Type.Integer({ description: 'Records they carried' }),
        last_seen_at: Timestamp('Its latest accepted request'),
      }),
      { description: `Senders, most records first (at most ${MAX_SENDERS})` },
    ),
    rejections: Type.Array(
      Type.Object({
        code: Type.String({ description: 'The problem code the collector answered with' }),
        count: Type.Integer(),
        last_at: Timestamp('The latest refusal with this code'),
        last_source_address: Type.String(),
        last_user_agent: Type.String(),
        last_detail: Type.String({ description: 'What the latest refusal said was wrong' }),
      }),
      { description: 'Refused requests by code, most frequent first' },
    ),
  },
  {
    examples: [
      {
        since: '2026-11-23T11:00:00.000Z',
        senders: [
          {
            protocol: 'log_sink',
            user_agent: 'Fluent-Bit',
            source_address: '10.0.0.5',
            requests: 1_440,
            records: 702_118,
            last_seen_at: '2026-11-24T10:42:16.903Z',
          },
        ],
        rejections: [
          {
            code: 'forwarder_array_format',
            count: 12,
            last_at: '2026-11-24T10:02:11.000Z',
            last_source_address: '10.0.0.7',
            last_user_agent: 'Fluent-Bit',
            last_detail: 'Could not add time to JSON for the forwarder: …',
          },
        ],
      },
    ],
  },
);

export const TestRecordSchema = Type.Object(
  {
    status: Type.Integer({ description: 'What the collector answered (201: stored)' }),
    stored: Type.Boolean({ description: 'The record was read back from the store' }),
    record_id: Type.Union([Type.String(), Type.Null()], { description: 'Its id in GET /v1/telemetry/records' }),
    round_trip_ms: Type.Number({ description: 'From sending the record to its durable 201' }),
    collector_url: Type.String(),
    detail: Type.Union([Type.String(), Type.Null()], { description: 'What was wrong, when it was not stored' }),
  },
  {
    examples: [
      {
        status: 201,
        stored: true,
        record_id: 'rec_2wczKbjFSM1IoQ4ZZJeO1w',
        round_trip_ms: 7.4,
        collector_url: 'https://acme-collector.sightline.example',
        detail: null,
      },
    ],
  },
);

export const collectorDiagnosticsRoutes = routePlugin(function collectorDiagnosticsRoutes(
  app: FastifyInstance,
  deps: {
    database: Database;
    address: CollectorAddressSettings;
    diagnostics: CollectorDiagnostics;
    tenants: CollectorTenants;
    ingestKeys: IngestKeyGate;
  },
): void {
  const { database, address, diagnostics, tenants, ingestKeys } = deps;
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  const access = { access: { scope: 'tenant', permission: 'telemetry:read' } } as const;

  routes.get(
    '/collector/diagnostics',
    {
      config: access,
      schema: {
        tags: ['Telemetry'],
        summary: 'What the collector heard',
        description:
          "The tenant's senders in the last 24 hours (User-Agent and source address, with requests, records and when last seen) and the requests the collector refused, by problem code, with the latest example of each: where to look when a forwarder is new, silent or misconfigured.",
        response: { 200: DiagnosticsSchema },
      },
    },
    async (request) => {
      const tenant = tenantOf(request);
      // Counts kept in memory for a few seconds are added first, so what was just sent shows.
      await diagnostics.flush();
      const now = Date.now();
      const since = now - (now % HOUR_MS) - 23 * HOUR_MS;
      const iso = (time: number) => new Date(time).toISOString();
      return {
        since: iso(since),
        senders: (await senders(database.db, tenant.id, since, MAX_SENDERS)).map((row) => ({
          ...row,
          last_seen_at: iso(row.last_seen_at),
        })),
        rejections: (await rejections(database.db, tenant.id, since)).map((row) => ({
          ...row,
          last_at: iso(row.last_at),
        })),
      };
    },
  );

  routes.post(
    '/collector/test-record',
    {
      config: { access: { scope: 'tenant', permission: 'ingest_keys:write' } },
      schema: {
        tags: ['Telemetry'],
        summary: 'Send a test record',
        description:
          'Sends one record, `{"message": "Sightline collector test", "sightline_test_id": …}`, through the tenant\'s collector the way a forwarder\'s request goes (addressed by its Host, with a one-time ingest key, parsed, committed durably) and answers how long the round trip took and whether the record reads back. Needs `ingest_keys:write`, as it passes the ingest-key requirement; audited as `collector.test_record_sent`.',
        response: {
          200: TestRecordSchema,
          404: problemResponse('The tenant has no collector here', 'unknown_collector'),
        },
      },
    },
    async (request) => {
      const tenant = tenantOf(request);
      const url = new URL(collectorUrl(address, tenant.code_name));
      // The collector answers an unknown address as it answers a missing key, so whether this
      // tenant's address reaches it is decided here, by the lookup the collector makes.
      if ((await tenants.find(url.host))?.id !== tenant.id)
        throw new AppError('unknown_collector', `no collector answers at ${url.host}`);
      // Only records after the log's current end can be this one: the read-back is a short range.
      const before = await logEnd(database.db);
      const testId = newId('test');
      const body = JSON.stringify({ message: 'Sightline collector test', sightline_test_id: testId });
      const started = performance.now();
      const answer = await app.inject({
        method: 'POST',
        url: '/log_sink',
        headers: {
          host: url.host,
          'content-type': 'application/json',
          'user-agent': 'Sightline collector test',
          // A one-time key held in memory: the test passes a collector that requires keys.
          authorization: `Bearer ${ingestKeys.issueProbe(tenant.id)}`,
        },
        remoteAddress: request.ip,
        payload: body,
      });
      const roundTrip = Number((performance.now() - started).toFixed(1));
      const storedSeq =
        answer.statusCode === 201 ? await findStoredText(database.db, tenant.id, before, body) : undefined;
      const result = {
        status: answer.statusCode,
        stored: storedSeq !== undefined,
        record_id: storedSeq === undefined ? null : recordId(storedSeq),
        round_trip_ms: roundTrip,
        collector_url: url.origin,
        detail: answer.statusCode === 201 ? null : (answer.json<{ detail?: string }>().detail ?? null),
      };
      await recordAudit(database.db, {
        tenantId: tenant.id,
        action: 'collector.test_record_sent',
        outcome: result.stored ? 'success' : 'failure',
        actor: actorOf(principalOf(request)),
        ip: request.ip,
        ...(result.record_id === null ? {} : { target: { type: 'record', id: result.record_id } }),
        details: { sightline_test_id: testId, status: result.status, stored: result.stored },
      });
      return result;
    },
  );
});
