// POST /v1/logs: OTLP/HTTP logs on the collector address (docs/collector.md, OTLP), for the
// OpenTelemetry Collector, SDK exporters and Fluent Bit's opentelemetry output. The shared
// intake admits, reads and stores; this route decodes, maps and answers in OTLP's terms.
import type { FastifyInstance } from 'fastify';
import type { CollectorDependencies, Intake } from '../intake/intake.js';
import { otlpEncoding, otlpErrorHandler, sendExportResponse, type OtlpEncoding } from './otlp-answers.js';
import { decodeExportRequest } from './otlp-protobuf.js';
import { mapExportRequest, type MappedLogs } from './otlp-records.js';
import { badData } from './otlp-values.js';

export function registerOtlpIntake(app: FastifyInstance, intake: Intake, deps: CollectorDependencies): void {
  app.route({
    method: 'POST',
    url: '/v1/logs',
    schema: {
      // The collector's contract is OTLP's, documented in docs/collector.md, not the API document.
      hide: true,
      summary: 'Send logs over OTLP/HTTP',
    },
    config: { collectorMediaTypes: otlpEncoding },
    errorHandler: otlpErrorHandler,
    onRequest: intake.admit(),
    handler: async (request, reply) => {
      const receivedAt = Date.now();
      const encoding = otlpEncoding(request.headers);
      const { body } = intake.bodyOf(request);
      const mapped = mapExportRequest(decode(body, encoding), {
        maxRecordBytes: deps.config.maxRecordBytes,
        ids: encoding === 'json' ? 'hex' : 'base64',
      });
      // An empty request is a valid export (OTLP), and so is one whose every record was refused.
      if (mapped.records.length > 0) await intake.store(request, reply, mapped, { receivedAt, protocol: 'otlp' });
      countRejected(deps, mapped);
      return sendExportResponse(reply, encoding, mapped.rejected, rejectionMessage(mapped));
    },
  });
}

function decode(body: Buffer, encoding: OtlpEncoding): unknown {
  if (body.length === 0) return {};
  try {
    return encoding === 'protobuf' ? decodeExportRequest(body) : JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw badData(
      `the body is not an ExportLogsServiceRequest in ${encoding === 'json' ? 'OTLP/JSON' : 'protobuf'} (${(error as Error).message})`,
    );
  }
}

function countRejected(deps: CollectorDependencies, mapped: MappedLogs): void {
  if (mapped.rejected > 0) deps.metrics.collectorRejects.inc({ reason: 'record_refused' }, mapped.rejected);
}

function rejectionMessage(mapped: MappedLogs): string {
  if (mapped.rejected === 0) return '';
  const others = mapped.rejected > 1 ? ` (and ${mapped.rejected - 1} more log records)` : '';
  return `${mapped.rejection}${others}; the other log records of the request were stored`;
}
