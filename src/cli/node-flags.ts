// Flags for the Node.js process that runs Sightline, wherever it is launched: the shebang of
// bin/sightline.js (`npx sightline serve`, an installed `sightline`), `npm start`, and the servers
// that tests and benchmarks start (test/helpers/processes.ts). node-flags.test.ts holds the
// first two to this list; README "Operations" says what to pass when launching node yourself.
//
// --max-semi-space-size=64 (MB; Node's default is 16): the collector holds each request's
// records until their commit answers, tens of milliseconds at line rate. In a 16 MB young
// generation they outlived two scavenges and were promoted, and collecting the old generation
// then took a third of a core. With 64 MB bench:ingest stored 25–35 % more records per second
// on two cores; 128 MB did no better and held 90 MB more.
export const NODE_FLAGS = ['--max-semi-space-size=64'] as const;
