import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { NODE_FLAGS } from './node-flags.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

test('the sightline command and npm start launch Node with the flags the server is measured with', () => {
  const shebang = fs.readFileSync(path.join(root, 'bin/sightline.js'), 'utf8').split('\n')[0];
  assert.equal(shebang, `#!/usr/bin/env -S node ${NODE_FLAGS.join(' ')}`);
  const scripts = (
    JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  ).scripts;
  assert.equal(scripts.start, `node ${NODE_FLAGS.join(' ')} bin/sightline.js serve`);
});

test("after the server's start, worker threads get Node's default young generation and the main thread keeps its own", () => {
  // Beside this file: the source under tsx (which maps .js to .ts), or the compiled test tree.
  const module = fileURLToPath(new URL('./node-flags.js', import.meta.url));
  // Allocates short-lived objects until new space has grown as far as it may, then reports it.
  const script = `
    import { Worker } from 'node:worker_threads';
    import v8 from 'node:v8';
    const newSpaceMb = () => {
      let keep = [];
      for (let i = 0; i < 3e6; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 200000) keep = []; }
      return v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size / 1048576;
    };
    const { workersAtDefaultYoungGeneration } = await import(${JSON.stringify(module)});
    workersAtDefaultYoungGeneration();
    // Dynamic imports: the worker's code runs as a module or a script, as the eval flags make it.
    const worker = new Worker(
      'Promise.all([import("node:worker_threads"), import("node:v8")]).then(([{ parentPort }, { default: v8 }]) => {' +
        'let keep = []; for (let i = 0; i < 3e6; i++) { keep.push({ i, s: "x" + i }); if (keep.length > 200000) keep = []; }' +
        'parentPort.postMessage(v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size / 1048576); });',
      { eval: true },
    );
    const workerMb = await new Promise((resolve) => worker.once('message', resolve));
    console.log(JSON.stringify({ main: newSpaceMb(), worker: workerMb }));
  `;
  const output = execFileSync(
    process.execPath,
    [...NODE_FLAGS, '--import', 'tsx', '--input-type=module', '-e', script],
    { cwd: root, encoding: 'utf8' },
  );
  const sizes = JSON.parse(output.trim().split('\n').pop() ?? '{}') as { main: number; worker: number };
  // New space holds two semi-spaces: 2 × 32 MB on the main thread, at most 2 × 16 MB in the worker.
  assert.ok(sizes.main >= 64, `main thread new space ${sizes.main} MB`);
  assert.ok(sizes.worker <= 32, `worker new space ${sizes.worker} MB`);
});
