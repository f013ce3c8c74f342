// Turns a stored record into a NormalisedEvent: one JSON.parse, one flattening pass, then the
// first record shape that claims it adds its taxonomy fields and says its family and logsources;
// aliases, orchestrator enrichment, the host and the endpoint rows follow. Hot path: no copies.
import type { NormalisedEvent, LogSource } from './event.js';
import { createApplicationRecogniser } from './application.js';
import { auditdRecogniser } from './auditd.js';
import { networkRow, processRow } from './endpoint.js';
import { applyMappings, firstPresent, firstString, isObject, newFields } from './fields.js';
import { flattenInto, TRUNCATED_FIELD } from './flatten.js';
import { genericRecogniser } from './generic.js';
import { cloudRecogniser } from './cloud.js';
import { CONTAINER_LOGSOURCE, kubernetesAuditRecogniser } from './kubernetes.js';
import { networkLogRecogniser } from './network-logs.js';
import { osqueryRecogniser } from './osquery.js';
import type { ProcessingPipeline } from './pipeline.js';
import type { Recognised, Recogniser } from './recogniser.js';
import { saasRecogniser } from './saas.js';
import { createSyslogRecogniser } from './syslog.js';
import { createWebserverRecogniser } from './webserver.js';
import { createWindowsRecogniser } from './windows.js';

/** A record as the record log stores it (telemetry_records). */
export interface StoredRecord {
  seq: number;
  tenantId: number;
  /** Epoch milliseconds. */
  receivedAt: number;
  /** Epoch milliseconds: the record's own time when it had a parseable one, else its receive time. */
  eventTime: number;
  /** One JSON object, as text. */
  record: string;
  /** Transport metadata (container-runtime stream/time), JSON text or null; not used for detection. */
  meta: string | null;
}

export interface Normaliser {
  /** Throws when the stored text is not a JSON object (the record log only holds objects). */
  normalise(record: StoredRecord): NormalisedEvent;
}

const NO_LOGSOURCES: LogSource[] = Object.freeze([]) as unknown as LogSource[];

export function createNormaliser(pipeline: ProcessingPipeline): Normaliser {
  // Order matters: the endpoint formats have distinctive structure and are checked first; the
  // log families are told apart by field names, the most specific (web) before the most generic.
  const recognisers: readonly Recogniser[] = [
    createWindowsRecogniser(pipeline),
    auditdRecogniser,
    osqueryRecogniser,
    genericRecogniser,
    kubernetesAuditRecogniser,
    cloudRecogniser,
    saasRecogniser,
    networkLogRecogniser,
    createWebserverRecogniser(pipeline),
    createSyslogRecogniser(pipeline),
    createApplicationRecogniser(pipeline),
  ];
  const { hostFields, keywordFields, aliases, orchestrator } = pipeline;

  return {
    normalise(stored) {
      const record: unknown = JSON.parse(stored.record);
      if (!isObject(record)) throw new Error(`record ${stored.seq} is not a JSON object`);
      const fields = newFields();
      const truncated = flattenInto(record, fields);

      let recognised: Recognised | undefined;
      for (const recogniser of recognisers) {
        recognised = recogniser.recognise(record, fields);
        if (recognised !== undefined) break;
      }
      const claimed = recognised !== undefined;
      recognised ??= { family: 'other', logsources: NO_LOGSOURCES, keywords: firstString(fields, keywordFields) ?? '' };
      applyMappings(fields, aliases);

      let logsources = recognised.logsources;
      let host = recognised.host ?? firstString(fields, hostFields) ?? null;
      if (firstPresent(fields, orchestrator.recogniseAny) !== undefined) {
        // The shared list is frozen: an enriched record gets its own copy with the container source.
        logsources = [...logsources, CONTAINER_LOGSOURCE];
        host ??= firstString(fields, orchestrator.hostFields) ?? null;
      }
      if (truncated) fields[TRUNCATED_FIELD] = true;

      const time = Number.isFinite(stored.eventTime) ? stored.eventTime : stored.receivedAt;
      const event: NormalisedEvent = {
        seq: stored.seq,
        tenantId: stored.tenantId,
        time,
        family: recognised.family,
        logsources,
        host,
        fields,
        keywords: recognised.keywords,
      };
      if (!claimed) event.unrecognised = record;
      const endpoint = recognised.endpoint;
      if (endpoint !== undefined) {
        if (endpoint.kind === 'process') event.process = processRow(fields, endpoint, host, time);
        else event.network = networkRow(fields, endpoint, host, time);
      }
      return event;
    },
  };
}
