// The `/v1` API: authentication and access checks for every route, then each feature's routes,
// and the OpenAPI document generated from them.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/config.js';
import type { Database } from '../storage/database.js';
import type { StoragePorts } from '../storage/ports/storage-ports.js';
import type { FailureLimiter } from '../identity/throttling/failure-limiter.js';
import type { AccountThrottle } from '../identity/throttling/account-throttle.js';
import type { Metrics } from '../observability/metrics.js';
import { authRoutes } from '../identity/sessions/auth-routes.js';
import { tokenRoutes } from '../identity/tokens/token-routes.js';
import { auditRoutes } from '../identity/audit/audit-routes.js';
import { tenantRoutes } from '../identity/tenants/tenant-routes.js';
import { partnerRoutes } from '../identity/partners/partner-routes.js';
import type { CollectorAddressSettings } from '../identity/tenants/tenant-service.js';
import { telemetryRoutes } from '../telemetry/telemetry-routes.js';
import { savedSearchRoutes } from '../telemetry/saved-search-routes.js';
import { askRoutes } from '../telemetry/ask/ask-routes.js';
import type { RecordLogWriter } from '../record-log/record-log.js';
import type { DetectionSetup } from '../detection/detection-setup.js';
import { ruleRoutes } from '../detection/rule-routes.js';
import { observationRoutes } from '../observations/observation-routes.js';
import { caseRoutes } from '../cases/case-routes.js';
import { deviceRoutes } from '../devices/device-routes.js';
import { deviceActionRoutes } from '../devices/device-action-routes.js';
import { summaryRoutes } from '../summaries/summary-routes.js';
import { SummarySchema } from '../summaries/summary-schemas.js';
import { caseSummaries } from '../summaries/case-summaries.js';
import { askModelFor } from '../summaries/ask-model.js';
import { userRoutes } from '../identity/users/user-routes.js';
import { userAdminRoutes } from '../identity/users/user-admin-routes.js';
import { accountRoutes } from '../identity/sessions/account-routes.js';
import { secondFactorRoutes } from '../identity/second-factor/second-factor-routes.js';
import { ssoRoutes } from '../identity/sso/sso-routes.js';
import { attackRoutes } from '../detection/attack-routes.js';
import { coverageRoutes } from '../detection/coverage-routes.js';
import { observationStatsRoutes } from '../observations/observation-stats-routes.js';
import { collectorStatsRoutes } from '../collector/diagnostics/collector-stats-routes.js';
import { unrecognisedRoutes } from '../telemetry/unrecognised/unrecognised-routes.js';
import { collectorDiagnosticsRoutes } from '../collector/diagnostics/collector-diagnostics-routes.js';
import type { CollectorDiagnostics } from '../collector/diagnostics/collector-diagnostics.js';
import type { CollectorTenants } from '../collector/intake/tenant-routing.js';
import type { IngestKeyGate } from '../collector/ingest-keys/ingest-key-gate.js';
import { ingestKeyRoutes } from '../collector/ingest-keys/ingest-key-routes.js';
import { ingestLimitRoutes } from '../collector/ingest-limits/ingest-limit-routes.js';
import type { IngestLimits } from '../collector/ingest-limits/ingest-limiter.js';
import { retentionRoutes } from '../retention/retention-routes.js';
import type { MonitoringSink } from '../summaries/monitoring/sink.js';
import { installAuth } from '../identity/auth.js';
import { webhookRoutes } from '../webhooks/webhook-routes.js';
import { installInputGuards } from '../http/input-guard.js';
import { installCursorScope } from '../http/pagination.js';
import { deviceReactions, observationWriting, tenantReactions, webhookPolicy } from './reactions.js';

export interface ApiDependencies {
  config: Config;
  database: Database;
  /** The database's storage ports, built once by the composition root. */
  ports: StoragePorts;
  writer: RecordLogWriter;
  limiter: FailureLimiter;
  /** The per-account sign-in delay: in memory on SQLite, shared by every API node on PostgreSQL. */
  accounts: AccountThrottle;
  metrics: Metrics;
  detection: DetectionSetup;
  /** The monitoring copy of summaries (isolated: never throws). */
  summarySink: MonitoringSink;
  /** How collector addresses are printed: the base domain, on the server's public scheme and port. */
  collectorAddress: CollectorAddressSettings;
  /** What each tenant's collector heard (Settings › Collector). */
  diagnostics: CollectorDiagnostics;
  /** Which tenant a collector address names (the collector test decides "no collector here" by it). */
  tenants: CollectorTenants;
  /** The collector's ingest keys: the key routes drop its cache, the collector test borrows a key. */
  ingestKeys: IngestKeyGate;
  /** A tenant's ingest limits changed through this process: its collector applies them at once. */
  ingestLimitsApplied?: (tenantId: number, limits: IngestLimits | undefined) => void;
  /** Something was queued for webhooks: this process's dispatcher looks at once. */
  webhooksQueued: () => void;
}

export async function v1Routes(app: FastifyInstance, deps: ApiDependencies): Promise<void> {
  const { config, database, limiter, metrics } = deps;
  const db = database.db;
  installAuth(app, { db, limiter, metrics });
  installInputGuards(app);
  // A cursor works only in the tenant it was handed out in (a partner's queue: in the partner's
  // calls across its tenants; operator-wide lists: in none).
  installCursorScope(app, (request) => {
    if (request.tenant) return `tenant ${request.tenant.id}`;
    const partner = request.principal?.partner;
    return request.tenants && partner ? `partner ${partner.id}` : 'no tenant';
  });

  app.get(
    '/openapi.json',
    {
      config: { access: { scope: 'account' } },
      schema: {
        tags: ['Authentication'],
        summary: 'The OpenAPI document',
        description: 'This API described as OpenAPI 3.1, generated from the route schemas the server validates with.',
        response: {
          200: {
            description: 'OpenAPI 3.1 document',
            type: 'object',
            additionalProperties: true,
            examples: [{ openapi: '3.1.0', info: { title: 'Sightline API' } }],
          },
        },
      },
    },
    async (_request, reply) => reply.type('application/json').send(JSON.stringify(app.swagger())),
  );

  const lifetime = { defaultMs: config.tokenLifetime, maxMs: config.tokenMaxLifetime };
  await app.register(authRoutes, {
    db,
    limiter,
    accounts: deps.accounts,
    secureCookies: Boolean(config.tlsCert) || config.insecureHttp,
    lifetime,
  });
  await app.register(tokenRoutes, { db, lifetime });
  await app.register(auditRoutes, { db });
  await app.register(tenantRoutes, {
    db,
    address: deps.collectorAddress,
    reactions: tenantReactions,
    summaryProvider: config.summaryProvider,
  });
  await app.register(partnerRoutes, { db, lifetime });
  const storage = deps.ports;
  await app.register(telemetryRoutes, {
    database,
    storage: storage.telemetry,
    searchIndex: storage.searchIndex,
    writer: deps.writer,
  });
  await app.register(savedSearchRoutes, { db });
  // Questions reach the tenant's AI provider, which lives in summaries/ above telemetry.
  await app.register(askRoutes, { db, modelFor: askModelFor(config) });
  const policy = { windowMs: config.caseWindow, grouping: config.caseGrouping };
  const writing = observationWriting(storage.locks, policy, deps.detection.catalogue);
  await app.register(observationRoutes, { db, catalogue: deps.detection.catalogue, writing });
  // Case responses embed the summary by reference to its schema (see cases/case-context.ts).
  app.addSchema(SummarySchema);
  await app.register(caseRoutes, {
    db,
    locks: storage.locks,
    search: storage.caseSearch,
    catalogue: deps.detection.catalogue,
    summaries: caseSummaries,
  });
  await app.register(deviceRoutes, { db, reactions: deviceReactions });
  await app.register(deviceActionRoutes, { db, reactions: deviceReactions, queued: deps.webhooksQueued });
  await app.register(summaryRoutes, {
    db,
    catalogue: deps.detection.catalogue,
    config,
    sink: deps.summarySink,
    metrics,
  });
  await app.register(userRoutes, { db });
  await app.register(userAdminRoutes, { db });
  await app.register(accountRoutes, { db, limiter });
  await app.register(secondFactorRoutes, { db, limiter });
  await app.register(ssoRoutes, {
    db,
    limiter,
    secureCookies: Boolean(config.tlsCert) || config.insecureHttp,
    address: deps.collectorAddress,
    policy: webhookPolicy(config),
  });
  await app.register(attackRoutes, { catalogue: deps.detection.catalogue });
  await app.register(observationStatsRoutes, { db });
  await app.register(collectorStatsRoutes, { database, address: deps.collectorAddress });
  await app.register(unrecognisedRoutes, { db });
  await app.register(collectorDiagnosticsRoutes, {
    database,
    address: deps.collectorAddress,
    diagnostics: deps.diagnostics,
    tenants: deps.tenants,
    ingestKeys: deps.ingestKeys,
  });
  await app.register(ingestKeyRoutes, { db, gate: deps.ingestKeys });
  await app.register(ingestLimitRoutes, {
    db,
    shared: database.kind === 'postgres',
    ...(deps.ingestLimitsApplied ? { applied: deps.ingestLimitsApplied } : {}),
  });
  await app.register(webhookRoutes, {
    database,
    policy: webhookPolicy(config),
    retryWindowMs: config.webhookRetryWindow,
    queued: deps.webhooksQueued,
  });
  await app.register(retentionRoutes, { db });
  await app.register(ruleRoutes, {
    compilation: deps.detection.compilation,
    catalogue: deps.detection.catalogue,
    pipeline: deps.detection.pipeline,
    rulePaths: deps.detection.rulePaths,
  });
  await app.register(coverageRoutes, {
    db,
    compilation: deps.detection.compilation,
    catalogue: deps.detection.catalogue,
  });
}
