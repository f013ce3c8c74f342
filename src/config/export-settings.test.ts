import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from './config.js';
import { hourStart, s3Url } from './export-settings.js';

test('the export destination is s3://bucket or s3://bucket/prefix; anything else names the setting', () => {
  assert.equal(s3Url('s3://soc-archive/sightline/'), 's3://soc-archive/sightline');
  assert.equal(s3Url('s3://soc-archive'), 's3://soc-archive');
  assert.equal(s3Url(''), '');
  for (const bad of ['https://soc-archive/x', 's3://Upper/x', 's3://ab', 's3://bucket/with space'])
    assert.throws(() => s3Url(bad), /s3:\/\/bucket/, bad);
  assert.throws(() => loadConfig({}, { SIGHTLINE_EXPORT_URL: 'bucket' }), /SIGHTLINE_EXPORT_URL/);
});

test('--export-since is an ISO time rounded down to its hour; the credentials come from the environment', () => {
  assert.equal(hourStart('2026-11-01T05:42:10Z'), Date.UTC(2026, 10, 1, 5));
  assert.equal(hourStart(''), null);
  assert.throws(() => hourStart('yesterday'), /ISO 8601/);
  const config = loadConfig(
    { exportUrl: 's3://soc-archive', exportDelay: '5m' },
    { SIGHTLINE_EXPORT_ACCESS_KEY_ID: 'AKIAEXAMPLE', SIGHTLINE_EXPORT_SECRET_ACCESS_KEY: 'secret' },
  );
  assert.deepEqual(
    [config.exportUrl, config.exportDelay, config.exportAccessKeyId, config.exportFindings],
    ['s3://soc-archive', 300_000, 'AKIAEXAMPLE', 'sightline'],
  );
});
