// The compiled tree the full test tier runs: tsc (tsconfig.json) compiles src/, test/, bench/ and
// scripts/ into .build/, and this file completes it so that every relative path the code reads
// still lands where it does in the repository:
//   - the files tsc does not emit (the query grammar, test fixtures, the scripts' .js and .mjs)
//     are copied beside their compiled neighbours;
//   - every other top-level entry (package.json, config/, rules/, attack/, vendor/, docs/, bin/,
//     dist/, web/ …) is a symbolic link to the repository's own.
// Test files then run on plain Node: no loader hooks, which cost each test process seconds of CPU
// to import the server's module graph (every module resolved and loaded through a hooks thread).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const BUILD_DIR = '.build';
const COMPILED = ['src', 'test', 'bench', 'scripts'];
const NOT_LINKED = new Set([...COMPILED, BUILD_DIR, 'node_modules', '.git']);

/** Compiles the tree (incrementally: after `npm run typecheck` it only checks) and completes it. */
export function buildTestTree() {
  const tsc = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'], {
    stdio: 'inherit',
  });
  if (tsc.status !== 0) return `tsc -p tsconfig.json failed (exit ${tsc.status})`;
  for (const root of COMPILED) copyUncompiled(root);
  for (const entry of fs.readdirSync('.')) {
    if (NOT_LINKED.has(entry)) continue;
    const link = path.join(BUILD_DIR, entry);
    fs.rmSync(link, { force: true, recursive: false });
    fs.symlinkSync(path.relative(BUILD_DIR, entry), link);
  }
  return undefined;
}

function copyUncompiled(root) {
  for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name.endsWith('.ts')) continue;
    const source = path.join(entry.parentPath, entry.name);
    const target = path.join(BUILD_DIR, source);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(source, target);
  }
}

/** Where a test file's compiled twin is: `test/api/x.test.ts` → `.build/test/api/x.test.js`. */
export const compiledTest = (file) => path.join(BUILD_DIR, file.replace(/\.ts$/, '.js'));
