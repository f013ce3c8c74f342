// The protobuf side of OTLP/HTTP logs: the messages the intake reads and writes, described by
// their field numbers from the OTLP specification (opentelemetry-proto, collector/logs/v1 and the
// messages under it; google.rpc.Status), decoded and encoded with protobufjs.
// Decoding stops past protobufjs's nesting limit of 100 messages, as protoc's does.
import protobuf from 'protobufjs/light.js';

const repeated = (type: string, id: number) => ({ rule: 'repeated', type, id });
const one = (type: string, id: number) => ({ type, id });

const keyValues = repeated('KeyValue', 1);

/** Fields the intake does not read (Resource.entity_refs, its own future fields) are skipped on decode. */
const root = protobuf.Root.fromJSON({
  nested: {
    ExportLogsServiceRequest: { fields: { resourceLogs: repeated('ResourceLogs', 1) } },
    ResourceLogs: {
      fields: { resource: one('Resource', 1), scopeLogs: repeated('ScopeLogs', 2), schemaUrl: one('string', 3) },
    },
    Resource: { fields: { attributes: keyValues, droppedAttributesCount: one('uint32', 2) } },
    ScopeLogs: {
      fields: {
        scope: one('InstrumentationScope', 1),
        logRecords: repeated('LogRecord', 2),
        schemaUrl: one('string', 3),
      },
    },
    InstrumentationScope: {
      fields: {
        name: one('string', 1),
        version: one('string', 2),
        attributes: repeated('KeyValue', 3),
        droppedAttributesCount: one('uint32', 4),
      },
    },
    LogRecord: {
      fields: {
        timeUnixNano: one('fixed64', 1),
        severityNumber: one('int32', 2),
        severityText: one('string', 3),
        body: one('AnyValue', 5),
        attributes: repeated('KeyValue', 6),
        droppedAttributesCount: one('uint32', 7),
        flags: one('fixed32', 8),
        traceId: one('bytes', 9),
        spanId: one('bytes', 10),
        observedTimeUnixNano: one('fixed64', 11),
        eventName: one('string', 12),
      },
    },
    AnyValue: {
      oneofs: {
        value: {
          oneof: ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue'],
        },
      },
      fields: {
        stringValue: one('string', 1),
        boolValue: one('bool', 2),
        intValue: one('int64', 3),
        doubleValue: one('double', 4),
        arrayValue: one('ArrayValue', 5),
        kvlistValue: one('KeyValueList', 6),
        bytesValue: one('bytes', 7),
      },
    },
    ArrayValue: { fields: { values: repeated('AnyValue', 1) } },
    KeyValueList: { fields: { values: keyValues } },
    KeyValue: { fields: { key: one('string', 1), value: one('AnyValue', 2) } },
    ExportLogsServiceResponse: { fields: { partialSuccess: one('ExportLogsPartialSuccess', 1) } },
    ExportLogsPartialSuccess: { fields: { rejectedLogRecords: one('int64', 1), errorMessage: one('string', 2) } },
    // google.rpc.Status; `details` (3) is never sent.
    Status: { fields: { code: one('int32', 1), message: one('string', 2) } },
  },
});

const requestType = root.lookupType('ExportLogsServiceRequest');
const responseType = root.lookupType('ExportLogsServiceResponse');
const statusType = root.lookupType('Status');

/**
 * An ExportLogsServiceRequest in OTLP/JSON's shape (lowerCamelCase names, 64-bit integers as
 * decimal strings, enums as numbers), except that ids and bytes are base64. Throws on bad data.
 */
export function decodeExportRequest(body: Uint8Array): Record<string, unknown> {
  const message = requestType.decode(body);
  return requestType.toObject(message, { longs: String, bytes: String, enums: Number, defaults: false });
}

/** An ExportLogsServiceResponse: empty, or with the partial success when records were refused. */
export function encodeExportResponse(rejected: number, errorMessage: string): Buffer {
  const message = responseType.fromObject(
    rejected > 0 ? { partialSuccess: { rejectedLogRecords: rejected, errorMessage } } : {},
  );
  return Buffer.from(responseType.encode(message).finish());
}

/** A google.rpc.Status, the body of every OTLP/HTTP failure. */
export function encodeStatus(code: number, message: string): Buffer {
  return Buffer.from(statusType.encode(statusType.create({ code, message })).finish());
}

/** For tests and tools: an ExportLogsServiceRequest from its OTLP/JSON-shaped object (ids as bytes). */
export function encodeExportRequest(request: Record<string, unknown>): Buffer {
  return Buffer.from(requestType.encode(requestType.fromObject(request)).finish());
}

/** For tests: the message a Status or response body holds. */
export function decodeStatus(body: Uint8Array): { code?: number; message?: string } {
  return statusType.toObject(statusType.decode(body));
}

export function decodeExportResponse(body: Uint8Array): Record<string, unknown> {
  return responseType.toObject(responseType.decode(body), { longs: String });
}
