import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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
