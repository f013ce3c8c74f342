// docs/architecture.md stays true to the code: every layer of scripts/layers.js is named there
// as `src/<layer>/`, and every `src/…` path it names exists. Pure: reads files, starts nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../helpers/processes.js';

// The repository's own src/ (the .ts paths the page names), also when this test runs compiled.
const root = `${repoRoot}${sep}`;
const page = fs.readFileSync(`${root}docs/architecture.md`, 'utf8');
// Imported by URL: scripts/layers.js is plain JavaScript shared with eslint.config.js.
const { LAYERS } = (await import(pathToFileURL(`${root}scripts/layers.js`).href)) as { LAYERS: string[][] };

test('every layer of scripts/layers.js is named in docs/architecture.md as src/<layer>/', () => {
  const missing = LAYERS.flat().filter((layer) => !page.includes(`src/${layer}/`));
  assert.deepEqual(missing, [], `layers missing from docs/architecture.md: ${missing.join(', ')}`);
});

test('every src/ folder is named in docs/architecture.md', () => {
  const folders = fs
    .readdirSync(`${root}src`, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
  const missing = folders.filter((folder) => !page.includes(`src/${folder}/`));
  assert.deepEqual(missing, [], `src/ folders missing from docs/architecture.md: ${missing.join(', ')}`);
});

test('every src/ path docs/architecture.md names exists', () => {
  const named = new Set([...page.matchAll(/\bsrc\/[\w./-]*[\w/]/g)].map((match) => match[0]));
  const absent = [...named].filter((path) => !path.includes('*') && !fs.existsSync(`${root}${path}`));
  assert.deepEqual(absent, [], `docs/architecture.md names paths that do not exist: ${absent.join(', ')}`);
});
