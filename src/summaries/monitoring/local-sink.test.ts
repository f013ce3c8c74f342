// The local sink's NDJSON files: one intact line per record under concurrency, owner-only modes,
// daily files by UTC day, retention sweeps, and failures confined to the call that met them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { createLocalSink, monitoringDir } from './local-sink.js';
import type { GenerationRecord } from './monitoring-sink.js';
import { feedback, generation, tempDir } from './test-records.js';

const readLines = async (file: string): Promise<string[]> => {
  const text = await fs.readFile(file, 'utf8');
  assert.ok(text.endsWith('\n'), 'each record ends its line');
  return text.slice(0, -1).split('\n');
};

const MARCH_10_NOON = Date.parse('2025-03-10T12:00:00.000Z');

test('local: one NDJSON line per record, with its type, in owner-only daily files', async (t) => {
  const dataDir = await tempDir(t);
  const sink = createLocalSink({ dataDir, retentionDays: 0 }, { now: () => MARCH_10_NOON });
  assert.equal(sink.name, 'local');
  const first = generation({ output: 'line one\nline two\r\n\u2028end' });
  await sink.recordGeneration(first);
  await sink.recordGeneration(
    generation({
      summary_id: 'sum_02',
      status: 'error',
      error: 'provider answered 503',
      error_type: 'http_503',
      output: '',
    }),
  );
  await sink.recordFeedback(feedback());
  await sink.close();

  const dir = monitoringDir(dataDir);
  assert.deepEqual((await fs.readdir(dir)).sort(), ['feedback-2025-03-10.ndjson', 'generations-2025-03-10.ndjson']);
  const generations = await readLines(path.join(dir, 'generations-2025-03-10.ndjson'));
  assert.equal(generations.length, 2);
  assert.deepEqual(JSON.parse(generations[0] ?? ''), { type: 'generation', ...first });
  assert.equal((JSON.parse(generations[1] ?? '') as GenerationRecord).error_type, 'http_503');
  const feedbackLines = await readLines(path.join(dir, 'feedback-2025-03-10.ndjson'));
  assert.deepEqual(
    feedbackLines.map((line) => JSON.parse(line) as unknown),
    [{ type: 'feedback', ...feedback() }],
  );

  assert.equal((await fs.stat(dir)).mode & 0o777, 0o700);
  for (const name of await fs.readdir(dir))
    assert.equal((await fs.stat(path.join(dir, name))).mode & 0o777, 0o600, name);
});

test('local: a file that predates the sink with a wider mode is made owner-only', async (t) => {
  const dataDir = await tempDir(t);
  const dir = monitoringDir(dataDir);
  await fs.mkdir(dir, { recursive: true, mode: 0o755 });
  await fs.chmod(dir, 0o755);
  const file = path.join(dir, 'generations-2025-03-10.ndjson');
  await fs.writeFile(file, '', { mode: 0o644 });
  await fs.chmod(file, 0o644);
  const sink = createLocalSink({ dataDir, retentionDays: 0 }, { now: () => MARCH_10_NOON });
  await sink.recordGeneration(generation());
  assert.equal((await fs.stat(file)).mode & 0o777, 0o600);
  assert.equal((await fs.stat(dir)).mode & 0o777, 0o700);
});

test('local: 100 concurrent large writes give 100 intact lines', async (t) => {
  const dataDir = await tempDir(t);
  const sink = createLocalSink({ dataDir, retentionDays: 0 }, { now: () => MARCH_10_NOON });
  // 600 KiB each: more than Node writes at once (512 KiB chunks), so unserialised appends interleave.
  const records = Array.from({ length: 100 }, (_, i) =>
    generation({ summary_id: `sum_${i}`, output: String(i % 10).repeat(600 * 1024) }),
  );
  await Promise.all(records.map((record) => sink.recordGeneration(record)));
  await sink.close();
  const lines = await readLines(path.join(monitoringDir(dataDir), 'generations-2025-03-10.ndjson'));
  assert.equal(lines.length, 100);
  const parsed = lines.map((line) => JSON.parse(line) as GenerationRecord & { type: string });
  assert.deepEqual(
    new Set(parsed.map((record) => record.summary_id)),
    new Set(records.map((record) => record.summary_id)),
  );
  for (const record of parsed)
    assert.equal(record.output, String(Number(record.summary_id.slice(4)) % 10).repeat(600 * 1024));
});

test('local: files change with the UTC day', async (t) => {
  const dataDir = await tempDir(t);
  let now = Date.parse('2025-03-10T23:59:59.999Z');
  const sink = createLocalSink({ dataDir, retentionDays: 0 }, { now: () => now });
  await sink.recordGeneration(generation({ summary_id: 'a' }));
  now += 1;
  await sink.recordGeneration(generation({ summary_id: 'b' }));
  assert.deepEqual((await fs.readdir(monitoringDir(dataDir))).sort(), [
    'generations-2025-03-10.ndjson',
    'generations-2025-03-11.ndjson',
  ]);
});

test('local: retention is indefinite by default', async (t) => {
  const dataDir = await tempDir(t);
  const dir = monitoringDir(dataDir);
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(path.join(dir, 'generations-2015-01-01.ndjson'), '{}\n');
  await fs.writeFile(path.join(dir, 'feedback-2015-01-01.ndjson'), '{}\n');
  const sink = createLocalSink({ dataDir, retentionDays: 0 }, { now: () => MARCH_10_NOON });
  await sink.recordGeneration(generation());
  await sink.recordFeedback(feedback());
  assert.deepEqual((await fs.readdir(dir)).sort(), [
    'feedback-2015-01-01.ndjson',
    'feedback-2025-03-10.ndjson',
    'generations-2015-01-01.ndjson',
    'generations-2025-03-10.ndjson',
  ]);
});

test('local: with retentionDays, files all of whose records are older are deleted, at most once an hour', async (t) => {
  const dataDir = await tempDir(t);
  const dir = monitoringDir(dataDir);
  await fs.mkdir(dir, { recursive: true });
  const keep = [
    'generations-2025-03-01.ndjson',
    'feedback-2025-03-30.ndjson',
    'notes.txt',
    'generations-2025-01-01.ndjson.bak',
  ];
  const old = ['generations-2025-02-28.ndjson', 'feedback-2025-02-27.ndjson', 'generations-2024-12-31.ndjson'];
  for (const name of [...keep, ...old]) await fs.writeFile(path.join(dir, name), '{}\n');
  let now = Date.parse('2025-03-31T12:00:00.000Z');
  const sink = createLocalSink({ dataDir, retentionDays: 30 }, { now: () => now });

  await sink.recordGeneration(generation());
  // 2025-02-28 ended 30 days and 12 hours ago; 2025-03-01 ends in less than 30 days.
  assert.deepEqual((await fs.readdir(dir)).sort(), [...keep, 'generations-2025-03-31.ndjson'].sort());

  await fs.writeFile(path.join(dir, 'feedback-2025-01-15.ndjson'), '{}\n');
  now += 59 * 60_000;
  await sink.recordFeedback(feedback());
  assert.ok((await fs.readdir(dir)).includes('feedback-2025-01-15.ndjson'), 'no second sweep within the hour');
  now += 60_000;
  await sink.recordFeedback(feedback());
  assert.ok(!(await fs.readdir(dir)).includes('feedback-2025-01-15.ndjson'), 'swept an hour after the last sweep');
  assert.ok((await fs.readdir(dir)).includes('generations-2025-03-01.ndjson'));
});

test('local: bad settings are refused; a closed sink refuses records', async (t) => {
  const dataDir = await tempDir(t);
  assert.throws(() => createLocalSink({ dataDir, retentionDays: -1 }), /retention/);
  assert.throws(() => createLocalSink({ dataDir, retentionDays: 1.5 }), /retention/);
  assert.throws(() => createLocalSink({ dataDir: '', retentionDays: 0 }), /data directory/);
  const sink = createLocalSink({ dataDir, retentionDays: 0 });
  await sink.close();
  await assert.rejects(sink.recordGeneration(generation()), /closed/);
});

test('local: a write that fails rejects that call only; later writes still land', async (t) => {
  const dataDir = await tempDir(t);
  let now = MARCH_10_NOON;
  const sink = createLocalSink({ dataDir, retentionDays: 0 }, { now: () => now });
  // A directory where the day's file should be makes that append fail.
  await fs.mkdir(path.join(monitoringDir(dataDir), 'generations-2025-03-10.ndjson'), { recursive: true });
  const failing = sink.recordGeneration(generation());
  const other = sink.recordFeedback(feedback());
  await assert.rejects(failing);
  await other;
  now += 86_400_000;
  await sink.recordGeneration(generation());
  assert.equal((await readLines(path.join(monitoringDir(dataDir), 'generations-2025-03-11.ndjson'))).length, 1);
});
