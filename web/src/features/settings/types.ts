// Response shapes of the settings pages, from the server's own route schemas (types only).
import type { Static } from 'typebox';
import type { TokenSchema } from '../../../../src/identity/identity-schemas.js';
import type { CollectorStatsSchema } from '../../../../src/collector/diagnostics/collector-stats-routes.js';
import type {
  DiagnosticsSchema,
  TestRecordSchema,
} from '../../../../src/collector/diagnostics/collector-diagnostics-routes.js';
import type { IngestKey } from '../../../../src/collector/ingest-keys/ingest-key-service.js';
import type { WriteRequestSchema } from '../../../../src/observations/observation-schemas.js';

export type ApiToken = Static<typeof TokenSchema>;
export type TokenStatus = ApiToken['status'];
/** POST /v1/tokens: the token and, this once, its value. */
export interface CreatedToken {
  token: ApiToken;
  value: string;
}
export type CollectorStats = Static<typeof CollectorStatsSchema>;
export type WriteRequest = Static<typeof WriteRequestSchema>;
export type CollectorDiagnostics = Static<typeof DiagnosticsSchema>;
export type TestRecordResult = Static<typeof TestRecordSchema>;
/** An ingest key as the API lists it (never its value). */
export type { IngestKey };
