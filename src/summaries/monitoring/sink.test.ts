// The factory and isolate(): createSink() builds each configured sink and refuses unknown names;
// isolate() passes successes through and keeps every failure, even its own handler's, from callers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { createSink, isolate, type MonitoringSettings, type MonitoringSink } from './sink.js';
import { feedback, generation, tempDir } from './test-records.js';

const settings = (dataDir: string, overrides: Partial<MonitoringSettings> = {}): MonitoringSettings => ({
  sink: 'none',
  dataDir,
  retentionDays: 0,
  otlpEndpoint: 'http://127.0.0.1:4318',
  otlpHeaders: {},
  timeoutMs: 1000,
  ...overrides,
});

test('createSink: none keeps nothing and writes nothing; local and otlp are built from the settings', async (t) => {
  const dataDir = await tempDir(t);
  const none = createSink(settings(dataDir));
  assert.equal(none.name, 'none');
  await none.recordGeneration(generation());
  await none.recordFeedback(feedback());
  await none.close();
  assert.deepEqual(await fs.readdir(dataDir), []);

  const local = createSink(settings(dataDir, { sink: 'local' }));
  assert.equal(local.name, 'local');
  await local.close();
  assert.equal(createSink(settings(dataDir, { sink: 'otlp' })).name, 'otlp');
  assert.throws(() => createSink(settings(dataDir, { sink: 'otlp', otlpEndpoint: 'not a url' })), /OTLP endpoint/);
  const unknown = 'disk' as MonitoringSettings['sink'];
  assert.throws(() => createSink(settings(dataDir, { sink: unknown })), /unknown monitoring sink "disk"/);
});

test('isolate: successes pass through; a throwing sink or failure handler never reaches the caller', async () => {
  const calls: string[] = [];
  const succeed = (what: string) => (): Promise<void> => {
    calls.push(what);
    return Promise.resolve();
  };
  const ok: MonitoringSink = {
    name: 'local',
    recordGeneration: succeed('generation'),
    recordFeedback: succeed('feedback'),
    close: succeed('close'),
  };
  const failures: string[] = [];
  const passing = isolate(ok, (_error, what) => failures.push(what));
  await passing.recordGeneration(generation());
  await passing.recordFeedback(feedback());
  await passing.close();
  assert.deepEqual(calls, ['generation', 'feedback', 'close']);
  assert.deepEqual(failures, []);

  const broken: MonitoringSink = {
    name: 'otlp',
    recordGeneration: () => {
      throw new Error('thrown synchronously');
    },
    recordFeedback: () => Promise.reject(new Error('rejected')),
    close: () => Promise.reject(new Error('close failed')),
  };
  const seen: [string, string][] = [];
  const isolated = isolate(broken, (error, what) =>
    seen.push([what, error instanceof Error ? error.message : String(error)]),
  );
  await isolated.recordGeneration(generation());
  await isolated.recordFeedback(feedback());
  await isolated.close();
  assert.deepEqual(seen, [
    ['generation', 'thrown synchronously'],
    ['feedback', 'rejected'],
    ['close', 'close failed'],
  ]);

  const careless = isolate(broken, () => {
    throw new Error('the handler itself fails');
  });
  await careless.recordGeneration(generation());
  await careless.recordFeedback(feedback());
});
