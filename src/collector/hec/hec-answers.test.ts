import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError, overloaded } from '../../core/errors.js';
import { hecErrorAnswer } from './hec-answers.js';

test("the collector's refusals carry HEC's codes; the status HEC clients retry on is kept", () => {
  const cases: [AppError, number, number][] = [
    [new AppError('ingest_key_required', 'x'), 401, 2],
    [new AppError('invalid_ingest_key', 'x'), 403, 4],
    [new AppError('empty_body', 'x'), 400, 5],
    [overloaded('full'), 503, 9],
    [new AppError('rate_limited', 'x', { headers: { 'Retry-After': '3' } }), 429, 9],
    [new AppError('storage_unavailable', 'x'), 503, 9],
    [new AppError('body_too_large', 'x'), 413, 6],
    [new AppError('invalid_compressed_body', 'x'), 400, 6],
  ];
  for (const [error, status, code] of cases) {
    const { answer } = hecErrorAnswer(error);
    assert.deepEqual([answer.status, answer.code], [status, code], error.code);
  }
});

test('an error naming an event answers invalid-event-number, and says what was wrong', () => {
  const { extra } = hecErrorAnswer(
    new AppError('hec_invalid_event', 'event 3: bad', { extensions: { event_number: 3 } }),
  );
  assert.deepEqual(extra, { 'invalid-event-number': 3, detail: 'event 3: bad' });
});
