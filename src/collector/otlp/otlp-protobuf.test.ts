import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { AppError } from '../../core/errors.js';
import {
  decodeExportRequest,
  decodeExportResponse,
  decodeStatus,
  encodeExportRequest,
  encodeExportResponse,
  encodeStatus,
} from './otlp-protobuf.js';
import { mapExportRequest } from './otlp-records.js';

const sample = {
  resourceLogs: [
    {
      resource: { attributes: [{ key: 'host.name', value: { stringValue: 'h1' } }] },
      scopeLogs: [
        {
          scope: { name: 's' },
          logRecords: [
            {
              timeUnixNano: '1700000000123456789',
              traceId: Buffer.from('0102030405060708090a0b0c0d0e0f10', 'hex'),
              body: { kvlistValue: { values: [{ key: 'n', value: { intValue: '9223372036854775807' } }] } },
            },
          ],
        },
      ],
    },
  ],
};

test('a request decodes to the OTLP/JSON shape with exact 64-bit integers and base64 ids', () => {
  const decoded = decodeExportRequest(encodeExportRequest(sample));
  const mapped = mapExportRequest(decoded, { maxRecordBytes: 1024, ids: 'base64' });
  assert.equal(
    mapped.records[0],
    '{"n":9223372036854775807,"otlp":{"time_unix_nano":"1700000000123456789",' +
      '"trace_id":"0102030405060708090a0b0c0d0e0f10","resource":{"attributes":{"host.name":"h1"}},"scope":{"name":"s"}}}',
  );
});

test('responses: empty on full success, the partial success otherwise; Status carries code and message', () => {
  assert.equal(encodeExportResponse(0, '').length, 0);
  assert.deepEqual(decodeExportResponse(encodeExportResponse(2, 'too large')), {
    partialSuccess: { rejectedLogRecords: '2', errorMessage: 'too large' },
  });
  assert.deepEqual(decodeStatus(encodeStatus(3, 'bad')), { code: 3, message: 'bad' });
});

/** A length-delimited protobuf field: tag, varint length, bytes. */
function lengthDelimited(fieldNumber: number, inner: Buffer): Buffer {
  const length: number[] = [];
  for (let n = inner.length; ; n >>>= 7) {
    if (n < 0x80) {
      length.push(n);
      break;
    }
    length.push((n & 0x7f) | 0x80);
  }
  return Buffer.concat([Buffer.from([(fieldNumber << 3) | 2, ...length]), inner]);
}

test('nesting past the decoder limit is an error, not a stack overflow', () => {
  // AnyValue.array_value (5) → ArrayValue.values (1) → AnyValue …, written by hand: the encoder
  // refuses to build what the decoder must refuse to read.
  let value = lengthDelimited(1, Buffer.from('x'));
  for (let i = 0; i < 10_000; i++) value = lengthDelimited(5, lengthDelimited(1, value));
  const body = lengthDelimited(1, lengthDelimited(2, lengthDelimited(2, lengthDelimited(5, value))));
  assert.throws(() => decodeExportRequest(body), /max depth exceeded/);
});

test('random and truncated bytes either decode to something the mapper judges, or throw', () => {
  const valid = encodeExportRequest(sample);
  const inputs = [
    ...Array.from({ length: 2000 }, () => randomBytes(1 + Math.floor(Math.random() * 200))),
    ...Array.from({ length: valid.length }, (_, end) => valid.subarray(0, end)),
    ...Array.from({ length: 500 }, () => {
      const mutated = Buffer.from(valid);
      mutated[Math.floor(Math.random() * mutated.length)] = Math.floor(Math.random() * 256);
      return mutated;
    }),
  ];
  for (const input of inputs) {
    let decoded: unknown;
    try {
      decoded = decodeExportRequest(input);
    } catch (error) {
      assert.ok(error instanceof Error, String(error));
      continue;
    }
    try {
      const mapped = mapExportRequest(decoded, { maxRecordBytes: 1024, ids: 'base64' });
      for (const record of mapped.records) assert.equal(typeof JSON.parse(record), 'object');
    } catch (error) {
      assert.ok(
        error instanceof AppError && error.code === 'invalid_otlp',
        `${String(error)} for ${input.toString('hex')}`,
      );
    }
  }
});
