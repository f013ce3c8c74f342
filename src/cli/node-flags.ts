// Flags for the Node.js process that runs Sightline, wherever it is launched: the shebang of
// bin/sightline.js (`npx sightline serve`, an installed `sightline`), `npm start`, and the servers
// that tests and benchmarks start (test/helpers/processes.ts). node-flags.test.ts holds the
// first two to this list; README "Operations" says what to pass when launching node yourself.
//
// --max-semi-space-size=32 (MB; Node's default is 16): the collector holds each request's
// records until their commit answers, tens of milliseconds at line rate. In a 16 MB young
// generation they outlived two scavenges and were promoted, and collecting the old generation
// then took a third of a core. On two cores bench:ingest stored 77,000–115,000 records/s with
// 16 MB, 113,000–126,000 with 32 and 104,000–143,000 with 64; but at 64 a PostgreSQL ingest
// burst took the server's peak RSS to 880–1,030 MB (640 MB at 32, 525 at 16), too near the 1 GB
// the server is held to.
import v8 from 'node:v8';

export const NODE_FLAGS = ['--max-semi-space-size=32'] as const;

/** Node's own semi-space size (MB), which worker threads keep. */
const WORKER_SEMI_SPACE_MB = 16;

/**
 * The flag sizes every V8 heap, worker threads' too; V8 reads it when it creates a heap, so
 * setting it back once the process has started leaves the main thread's as started and gives
 * the workers created later (record writer, detection, purge) Node's default: no records of
 * theirs wait on commits, and each larger young generation is memory held for nothing.
 */
export function workersAtDefaultYoungGeneration(): void {
  v8.setFlagsFromString(`--max-semi-space-size=${WORKER_SEMI_SPACE_MB}`);
}
