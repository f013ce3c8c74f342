import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../core/errors.js';
import { mapExportRequest, type MapOptions } from './otlp-records.js';
import { MAX_NESTING_DEPTH } from '../intake/parse.js';

const options: MapOptions = { maxRecordBytes: 4096, ids: 'hex' };

const str = (value: string) => ({ stringValue: value });
const kv = (key: string, value: unknown) => ({ key, value });

/** One resource with one scope holding these log records. */
function request(logRecords: unknown[], resourceAttributes: unknown[] = []) {
  return {
    resourceLogs: [
      {
        resource: { attributes: resourceAttributes },
        scopeLogs: [{ scope: { name: 'app', version: '1.2' }, logRecords }],
      },
    ],
  };
}

const records = (mapped: { records: string[] }) => mapped.records.map((text) => JSON.parse(text) as unknown);

test('a string body is the message; the OTLP context sits under otlp with snake_case names', () => {
  const mapped = mapExportRequest(
    request(
      [
        {
          timeUnixNano: '1700000000123456789',
          observedTimeUnixNano: '1700000001000000000',
          severityNumber: 9,
          severityText: 'INFO',
          eventName: 'user.login',
          traceId: '5B8EFFF798038103D269B633813FC60C',
          spanId: 'EEE19B7EC3C1B174',
          flags: 1,
          body: str('login ok'),
          attributes: [kv('user.name', str('bob')), kv('attempt', { intValue: '3' })],
        },
      ],
      [kv('host.name', str('web-1'))],
    ),
    options,
  );
  assert.deepEqual(records(mapped), [
    {
      message: 'login ok',
      otlp: {
        time_unix_nano: '1700000000123456789',
        observed_time_unix_nano: '1700000001000000000',
        severity_number: 9,
        severity_text: 'INFO',
        event_name: 'user.login',
        trace_id: '5b8efff798038103d269b633813fc60c',
        span_id: 'eee19b7ec3c1b174',
        flags: 1,
        attributes: { 'user.name': 'bob', attempt: 3 },
        resource: { attributes: { 'host.name': 'web-1' } },
        scope: { name: 'app', version: '1.2' },
      },
    },
  ]);
  assert.deepEqual(mapped.eventTimes, [1700000000123]);
});

test('a map body becomes the record itself, every AnyValue kind as JSON, int64 digits exact', () => {
  const body = {
    kvlistValue: {
      values: [
        kv('EventID', { intValue: '1' }),
        kv('big', { intValue: '-9223372036854775808' }),
        kv('ratio', { doubleValue: 1.5 }),
        kv('nan', { doubleValue: 'NaN' }),
        kv('ok', { boolValue: false }),
        kv('raw', { bytesValue: 'AAE=' }),
        kv('list', { arrayValue: { values: [str('a'), { intValue: 2 }, {}] } }),
        kv('nested', { kvlistValue: { values: [kv('x', str('y'))] } }),
      ],
    },
  };
  const mapped = mapExportRequest(request([{ body }]), options);
  assert.equal(
    mapped.records[0],
    '{"EventID":1,"big":-9223372036854775808,"ratio":1.5,"nan":"NaN","ok":false,"raw":"AAE=","list":["a",2,null],' +
      '"nested":{"x":"y"},"otlp":{"scope":{"name":"app","version":"1.2"}}}',
  );
});

test('a string body holding a JSON object is the record, kept as written; its time counts', () => {
  const text = '{ "EventID": 4688, "big": 18446744073709551615, "timestamp": "2026-11-22T10:18:00Z" }';
  const mapped = mapExportRequest(request([{ body: str(text), observedTimeUnixNano: '1' + '0'.repeat(18) }]), options);
  assert.ok(mapped.records[0]?.startsWith('{"EventID":4688,"big":18446744073709551615,"timestamp":'));
  assert.equal(mapped.eventTimes[0], Date.parse('2026-11-22T10:18:00Z'));
});

test('without any time the receive time is used; observed time stands in for a missing own time', () => {
  const mapped = mapExportRequest(
    request([{ body: str('a') }, { body: str('b'), observedTimeUnixNano: '1700000000000000000' }]),
    options,
  );
  assert.ok(Number.isNaN(mapped.eventTimes[0]));
  assert.equal(mapped.eventTimes[1], 1_700_000_000_000);
});

test('a body with its own otlp member, or other values, is kept whole under message or body', () => {
  const mapped = mapExportRequest(
    request([{ body: { kvlistValue: { values: [kv('otlp', str('mine'))] } } }, { body: { intValue: '7' } }, {}]),
    options,
  );
  assert.deepEqual(records(mapped), [
    { body: { otlp: 'mine' }, otlp: { scope: { name: 'app', version: '1.2' } } },
    { body: 7, otlp: { scope: { name: 'app', version: '1.2' } } },
    { otlp: { scope: { name: 'app', version: '1.2' } } },
  ]);
});

test('protobuf field names and base64 ids are read as well as OTLP/JSON ones', () => {
  const mapped = mapExportRequest(
    { resource_logs: [{ scope_logs: [{ log_records: [{ trace_id: 'AQI=', body: { string_value: 'x' } }] }] }] },
    { ...options, ids: 'base64' },
  );
  assert.deepEqual(records(mapped), [{ message: 'x', otlp: { trace_id: '0102' } }]);
});

test('records over the size or nesting limit are refused one by one, the rest kept', () => {
  let deep: unknown = str('bottom');
  for (let i = 0; i <= MAX_NESTING_DEPTH; i++) deep = { arrayValue: { values: [deep] } };
  const mapped = mapExportRequest(
    request([{ body: str('small') }, { body: str('x'.repeat(5000)) }, { body: deep }]),
    options,
  );
  assert.equal(mapped.records.length, 1);
  assert.equal(mapped.rejected, 2);
  assert.match(mapped.rejection, /log record 2 is \d+ bytes as stored; the largest accepted record is 4096 bytes/);
});

test('malformed requests are invalid_otlp', () => {
  for (const bad of [
    [],
    { resourceLogs: {} },
    request([{ timeUnixNano: 'soon' }]),
    request([{ traceId: 'xyz' }]),
    request([{ attributes: [{ value: str('no key') }] }]),
    request([{ body: { intValue: '1.5' } }]),
  ]) {
    assert.throws(
      () => mapExportRequest(bad, options),
      (error) => error instanceof AppError && error.code === 'invalid_otlp',
      JSON.stringify(bad),
    );
  }
});
