// Copies the files the server reads at run time beside its compiled code (the peggy grammars)
// from src/ into dist/, which tsc alone does not.
import fs from 'node:fs';
import path from 'node:path';

const from = 'src';
const to = 'dist';
for (const entry of fs.readdirSync(from, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith('.peggy')) continue;
  const source = path.join(entry.parentPath, entry.name);
  const target = path.join(to, path.relative(from, source));
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.copyFileSync(source, target);
}
