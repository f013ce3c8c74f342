// Flags for the Node.js process that runs Sightline, wherever it is launched: the shebang of
// bin/sightline.js (`npx sightline serve`, an installed `sightline`), `npm start`, and the servers
// that tests and benchmarks start (test/helpers/processes.ts). node-flags.test.ts holds the
// first two to this list; docs/operations.md, Node's flags, says what to pass when launching node yourself.
//
// --max-semi-space-size=32 (MB; Node's default is 16): the collector holds each request's
// records until their commit answers, tens of milliseconds at line rate. In a 16 MB young
// generation they outlive two scavenges and are promoted, and collecting the old generation then
// takes a third of a core; a larger young generation for every thread stores a little more but
// takes a PostgreSQL ingest burst's peak memory too near the 1 GB the server is held to, so
// worker threads keep Node's 16 MB (the figures are in docs/performance.md, bench:ingest).
import v8 from 'node:v8';

export const NODE_FLAGS = ['--max-semi-space-size=32'] as const;

/** Node's own semi-space size (MB), which worker threads keep. */
const WORKER_SEMI_SPACE_MB = 16;

/**
 * The flag sizes every V8 heap, worker threads' too; V8 reads it when it creates a heap, so
 * setting it back once the process has started leaves the main thread's as started and gives
 * the worker threads created later (the record writer, detection and purge threads) Node's default: no records of
 * theirs wait on commits, and each larger young generation is memory held for nothing.
 */
export function workersAtDefaultYoungGeneration(): void {
  v8.setFlagsFromString(`--max-semi-space-size=${WORKER_SEMI_SPACE_MB}`);
}
