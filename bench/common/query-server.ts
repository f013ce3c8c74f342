// bench:query's server: `sightline serve` in a child process (as in bench:api), not in this one:
// better-sqlite3 runs each query synchronously on the server's event loop, so a pathological
// query would block an in-process client as well and no request could time out. The children
// and the clean-up steps are tracked so that an interrupt or a failure leaves nothing behind.
import { freePort, spawnSightline, stopChild, waitReady, type Child } from '../../test/helpers/processes.js';

export const active = new Set<Child>();
export const cleanup: (() => void | Promise<void>)[] = [];

export async function runCleanup(): Promise<void> {
  for (const step of cleanup.splice(0).reverse()) {
    try {
      await step();
    } catch (error) {
      process.stderr.write(`cleanup failed: ${error instanceof Error ? error.message : String(error)}\n`);
    }
  }
}

/**
 * Runs a benchmark's main: on SIGINT/SIGTERM or a failure its server children are stopped and
 * its temporary data removed, so nothing is left behind; an interrupt exits 130, a failure 1.
 */
export function runBenchMain(name: string, main: () => Promise<void>): void {
  let interrupted = false;
  const interrupt = (signal: NodeJS.Signals) => {
    if (interrupted) return;
    interrupted = true;
    process.stderr.write(`${signal}: stopping the server and removing temporary data\n`);
    void Promise.all([...active].map((child) => stopChild(child, 2_000)))
      .then(runCleanup)
      .finally(() => process.exit(130));
  };
  process.on('SIGINT', interrupt);
  process.on('SIGTERM', interrupt);
  main()
    .catch(async (error: unknown) => {
      process.stderr.write(
        `${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      await Promise.all([...active].map((child) => stopChild(child)));
      process.exitCode = 1;
    })
    .finally(runCleanup);
}

export interface Server {
  child: Child;
  base: string;
}

/** `sightline serve` on the storage, detection off, warnings and errors kept. */
export async function startServer(storage: string[]): Promise<Server> {
  const port = await freePort();
  const child = spawnSightline([
    'serve',
    ...storage,
    '--port',
    String(port),
    '--log-level',
    'warn',
    '--detection',
    'off',
  ]);
  active.add(child);
  const base = `http://127.0.0.1:${port}`;
  await waitReady(child, `${base}/readyz`, 300_000);
  return { child, base };
}

export async function stopServer(server: Server, graceMs?: number): Promise<string[]> {
  const { code, killed } = await stopChild(server.child, graceMs);
  active.delete(server.child);
  const notes = [];
  if (killed) notes.push('the server did not exit after SIGTERM and was killed');
  else if (code !== 0 && graceMs === undefined) notes.push(`the server exited with code ${code}`);
  const log = `${server.child.stderr()}${server.child.stdout()}`.trim();
  if (log) {
    const lines = log.split('\n');
    notes.push(
      `the server logged ${lines.length} line(s) at warn or above; first: ${lines.slice(0, 3).join('\n    ')}`,
    );
  }
  return notes;
}
