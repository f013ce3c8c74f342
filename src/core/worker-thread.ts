// Starts a worker thread on a module that sits beside its caller, from the built `.js` in dist/
// or, when running from source (tests, benchmarks under tsx), from the `.ts` with tsx registered
// in the thread first: Node 20 does not run `--import` hooks in workers.
//
// A thread started from source compiles its whole module graph again, with a loader thread of
// its own: seconds of CPU for each server a test starts. The test runner builds dist/ from the
// same source before the suites that start servers, and names it in SIGHTLINE_BUILT_DIST;
// threads then start from there, as they do in production.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * `besides` is the caller's `import.meta.url`; `entry` the thread module's name without its
 * extension, in the same folder (so it is found alike from src/ and dist/).
 */
export function startWorkerThread(besides: string, entry: string, workerData: unknown): Worker {
  if (!besides.endsWith('.ts')) return new Worker(new URL(`./${entry}.js`, besides), { workerData });
  const built = builtTwin(new URL(`./${entry}.ts`, besides), process.env.SIGHTLINE_BUILT_DIST);
  if (built) return new Worker(built, { workerData });
  const source = new URL(`./${entry}.ts`, besides).href;
  const bootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(source)}); })`;
  return new Worker(bootstrap, { eval: true, workerData });
}

/**
 * The compiled twin of a module under src/ in the build folder `builtDir` (dist/ mirrors src/),
 * or undefined when no build folder is named or the module is not under a src/ beside it.
 */
export function builtTwin(source: URL, builtDir: string | undefined): URL | undefined {
  if (!builtDir) return undefined;
  const built = path.resolve(builtDir);
  const sourceRoot = path.join(path.dirname(built), 'src');
  const relative = path.relative(sourceRoot, fileURLToPath(source));
  if (relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
  return pathToFileURL(path.join(built, relative.replace(/\.ts$/, '.js')));
}
