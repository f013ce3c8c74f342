// A real NATS JetStream cluster for the scale-out tests and benchmarks: Debian's nats-server,
// several nodes on free loopback ports with their stores in a directory of the caller's. A
// server the machine already runs (on 4222) is never used, started or stopped. Without
// nats-server the tests say so loudly, and under CI they fail.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { freePort } from './processes.js';

const BINARIES = ['nats-server', '/usr/sbin/nats-server'];

/** The nats-server binary, or undefined (after a loud warning; under CI, an error). */
export function natsServerBinary(what: string): string | undefined {
  const found = BINARIES.find((binary) => spawnSync(binary, ['--version'], { stdio: 'ignore' }).status === 0);
  if (found) return found;
  const message = `nats-server is not installed: ${what} NOT running (apt-get install nats-server; .ci/run does)`;
  if (process.env.CI) throw new Error(message);
  console.warn(`\n*** WARNING: ${message} ***\n`);
  return undefined;
}

interface Node {
  name: string;
  port: number;
  clusterPort: number;
  storeDir: string;
  process: ChildProcess | undefined;
  log: string;
}

export class NatsCluster {
  private constructor(
    private readonly binary: string,
    private readonly nodes: Node[],
  ) {}

  /**
   * Starts `size` servers forming one JetStream cluster (one: a standalone server); resolves once
   * every client port answers. `ports` fixes the client ports (taken free otherwise).
   */
  static async start(binary: string, dir: string, size = 3, ports: number[] = []): Promise<NatsCluster> {
    const nodes: Node[] = [];
    for (let i = 0; i < size; i += 1) {
      nodes.push({
        name: `n${i}`,
        port: ports[i] ?? (await freePort()),
        clusterPort: await freePort(),
        storeDir: path.join(dir, `nats-n${i}`),
        process: undefined,
        log: '',
      });
    }
    const cluster = new NatsCluster(binary, nodes);
    for (let i = 0; i < size; i += 1) cluster.spawnNode(i);
    await Promise.all(nodes.map((node) => waitForPort(node.port, 20_000)));
    return cluster;
  }

  /** The client URLs, comma-separated, as --queue takes them. */
  get urls(): string {
    return this.nodes.map((node) => `nats://127.0.0.1:${node.port}`).join(',');
  }

  /** kill -9 of one server. */
  kill(index: number): void {
    this.nodes[index]?.process?.kill('SIGKILL');
  }

  /** Signals one server: SIGSTOP freezes it as a hung machine would be, SIGCONT resumes it. */
  signal(index: number, signal: NodeJS.Signals): void {
    this.nodes[index]?.process?.kill(signal);
  }

  /** One server's client URL. */
  url(index: number): string {
    return `nats://127.0.0.1:${this.nodes[index]?.port ?? 0}`;
  }

  /** The index of the server JetStream names so (n0, n1, …), e.g. a stream's leader; -1 if none. */
  indexOf(name: string): number {
    return this.nodes.findIndex((node) => node.name === name);
  }

  /** Starts a killed server again on the same ports and store. */
  async restart(index: number): Promise<void> {
    const node = this.nodes[index];
    if (!node) throw new Error(`no NATS node ${index}`);
    if (node.process?.exitCode === null && node.process.signalCode === null) {
      await new Promise((resolve) => node.process?.once('exit', resolve));
    }
    this.spawnNode(index);
    await waitForPort(node.port, 20_000);
  }

  /** The running servers' process ids (for resource figures). */
  pids(): number[] {
    return this.nodes.flatMap((node) => (node.process?.pid === undefined ? [] : [node.process.pid]));
  }

  logs(): string {
    return this.nodes.map((node) => `--- ${node.name}\n${node.log.slice(-3_000)}`).join('\n');
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.nodes.map(async (node) => {
        const child = node.process;
        if (child?.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }),
    );
  }

  private spawnNode(index: number): void {
    const node = this.nodes[index];
    if (!node) throw new Error(`no NATS node ${index}`);
    fs.mkdirSync(node.storeDir, { recursive: true });
    const routes = this.nodes.map((other) => `nats://127.0.0.1:${other.clusterPort}`).join(',');
    // prettier-ignore
    const args = [
      '-a', '127.0.0.1', '-p', String(node.port), '-js', '-sd', node.storeDir, '-n', node.name,
      ...(this.nodes.length > 1
        ? ['--cluster_name', 'sightline-test', '--cluster', `nats://127.0.0.1:${node.clusterPort}`, '--routes', routes]
        : []),
    ];
    const child = spawn(this.binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (chunk: Buffer) => (node.log = (node.log + chunk.toString('utf8')).slice(-50_000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    node.process = child;
  }
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`NATS server on port ${port} did not start within ${timeoutMs} ms`);
}
