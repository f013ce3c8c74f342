// Starts a worker thread on a module that sits beside its caller, from the built `.js` in dist/
// or, when running from source (tests, benchmarks under tsx), from the `.ts` with tsx registered
// in the thread first: Node 20 does not run `--import` hooks in workers.
import { Worker } from 'node:worker_threads';

/**
 * `besides` is the caller's `import.meta.url`; `entry` the thread module's name without its
 * extension, in the same folder (so it is found alike from src/ and dist/).
 */
export function startWorkerThread(besides: string, entry: string, workerData: unknown): Worker {
  if (!besides.endsWith('.ts')) return new Worker(new URL(`./${entry}.js`, besides), { workerData });
  const source = new URL(`./${entry}.ts`, besides).href;
  const bootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(source)}); })`;
  return new Worker(bootstrap, { eval: true, workerData });
}
