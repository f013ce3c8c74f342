import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { builtTwin, startWorkerThread } from './worker-thread.js';

test('a module under src/ has its twin at the same place in the build folder beside it', () => {
  const root = path.resolve('/srv/sightline');
  const source = pathToFileURL(path.join(root, 'src/storage/sqlite/purge-thread.ts'));
  assert.equal(
    builtTwin(source, path.join(root, 'dist'))?.href,
    pathToFileURL(path.join(root, 'dist/storage/sqlite/purge-thread.js')).href,
  );
  assert.equal(builtTwin(source, undefined), undefined, 'no build folder named: none');
  assert.equal(builtTwin(source, ''), undefined);
  const elsewhere = pathToFileURL(path.join(root, 'test/helpers/x.ts'));
  assert.equal(builtTwin(elsewhere, path.join(root, 'dist')), undefined, 'not under src/: none');
});

test('with a build folder named, a thread beside a source module starts from its compiled twin', async (t) => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'sightline-worker-thread-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(path.join(root, 'src/core'), { recursive: true });
  mkdirSync(path.join(root, 'dist/core'), { recursive: true });
  writeFileSync(path.join(root, 'package.json'), '{"type":"module"}');
  // The source twin would fail to load if it were the one started: it is not even TypeScript.
  writeFileSync(path.join(root, 'src/core/echo-thread.ts'), 'this is not a module');
  writeFileSync(
    path.join(root, 'dist/core/echo-thread.js'),
    "import { parentPort, workerData } from 'node:worker_threads'; parentPort.postMessage(['built', workerData]);",
  );
  const previous = process.env.SIGHTLINE_BUILT_DIST;
  process.env.SIGHTLINE_BUILT_DIST = path.join(root, 'dist');
  t.after(() => {
    if (previous === undefined) delete process.env.SIGHTLINE_BUILT_DIST;
    else process.env.SIGHTLINE_BUILT_DIST = previous;
  });
  const caller = pathToFileURL(path.join(root, 'src/core/caller.ts')).href;
  const worker = startWorkerThread(caller, 'echo-thread', { n: 7 });
  const [message] = (await once(worker, 'message')) as [unknown];
  await worker.terminate();
  assert.deepEqual(message, ['built', { n: 7 }]);
});
