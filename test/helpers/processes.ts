// Child-process plumbing shared by the benchmarks and the crash tests: free ports, spawning the
// sightline command and TypeScript entry points, waiting for readiness, and stopping servers without leaving strays.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE_FLAGS } from '../../src/cli/node-flags.js';

/**
 * The repository: two folders up from here, or from the compiled tree the full test tier runs
 * (.build/ inside the repository, scripts/test-build.mjs).
 */
export const repoRoot = (() => {
  const up = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  return path.basename(up) === '.build' ? path.dirname(up) : up;
})();

export interface Child {
  process: ChildProcess;
  /** Everything the child wrote to stdout, kept to parse results or show when something fails. */
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** A port the OS says is free now; the tiny race until the server binds is acceptable locally. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('could not obtain a free port'))));
    });
  });
}

/**
 * Runs `sightline …args`, output captured: the compiled command when the test runner has built
 * dist/ from this source (it names it in SIGHTLINE_BUILT_DIST), as users run it, else the source
 * through tsx. Either way with the Node flags its launchers give it.
 */
export function spawnSightline(args: string[]): Child {
  const built = process.env.SIGHTLINE_BUILT_DIST;
  return built
    ? spawnNode([...NODE_FLAGS, path.join(built, 'cli/run.js'), ...args])
    : spawnNode([...NODE_FLAGS, '--import', 'tsx', 'src/cli/run.ts', ...args]);
}

/** Runs `node --import tsx <script> …args` from the repository root, output captured. */
export function spawnTsx(script: string, args: string[]): Child {
  return spawnNode(['--import', 'tsx', script, ...args]);
}

function spawnNode(args: string[]): Child {
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Cap the captured text: a misbehaving server logging per request must not exhaust our memory.
  const cap = 1_000_000;
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out = (out + chunk).slice(-cap)));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err = (err + chunk).slice(-cap)));
  const exited = new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
  return { process: child, stdout: () => out, stderr: () => err, exited };
}

function getStatus(url: string): Promise<number> {
  return new Promise((resolve) => {
    const request = http.get(url, { timeout: 2_000 }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(0));
  });
}

/** Polls GET url until 200; fails early if the child dies, and after timeoutMs at most. */
export async function waitReady(child: Child, url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.process.exitCode !== null) {
      throw new Error(
        `server exited with code ${child.process.exitCode} before it was ready:\n${child.stderr()}${child.stdout()}`,
      );
    }
    if ((await getStatus(url)) === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`server not ready at ${url} after ${timeoutMs} ms:\n${child.stderr()}${child.stdout()}`);
}

/** SIGTERM, then SIGKILL after graceMs: a server stuck closing must not outlive the benchmark. */
export async function stopChild(child: Child, graceMs = 10_000): Promise<{ code: number | null; killed: boolean }> {
  if (child.process.exitCode !== null || child.process.signalCode !== null)
    return { code: child.process.exitCode, killed: false };
  child.process.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), graceMs)));
  const result = await Promise.race([child.exited, timedOut]);
  clearTimeout(timer);
  if (result !== 'timeout') return { code: result, killed: false };
  child.process.kill('SIGKILL');
  return { code: await child.exited, killed: true };
}
