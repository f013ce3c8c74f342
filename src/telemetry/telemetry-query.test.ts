// phraseQuery: any text becomes a query the parser reads back as that very phrase, within the
// query length limit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_QUERY_LENGTH, parseTelemetryQuery, phraseQuery } from './telemetry-query.js';

test('a phrase query reads back as the text, whatever it holds', () => {
  for (const text of [
    '203.0.113.44',
    'C:\\Windows\\System32\\cmd.exe /c "whoami"',
    'a AND b OR NOT (c) field:value *',
    'https://evil.example/a?b="1"&c=\\',
  ]) {
    const query = phraseQuery(text);
    assert.ok(query, text);
    assert.deepEqual(parseTelemetryQuery(query), { type: 'text', text, phrase: true, prefix: false });
  }
});

test('control characters become spaces; text without letters or digits makes no query', () => {
  assert.deepEqual(parseTelemetryQuery(phraseQuery('whoami\t/all\n') ?? ''), {
    type: 'text',
    text: 'whoami /all ',
    phrase: true,
    prefix: false,
  });
  assert.equal(phraseQuery('--- !!!'), undefined);
});

test('a long text is cut after its last whole word that fits', () => {
  const text = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
  const query = phraseQuery(text) ?? '';
  assert.ok(query.length <= MAX_QUERY_LENGTH);
  const parsed = parseTelemetryQuery(query);
  assert.ok(parsed?.type === 'text');
  const kept = parsed.text;
  assert.ok(text.startsWith(kept) && /word\d+$/.test(kept), kept.slice(-20));
  assert.ok(text.startsWith(`${kept} `), 'ends on a whole word');
});
