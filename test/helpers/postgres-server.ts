// A PostgreSQL server of a test's own, which the test may kill -9 and start again: initdb into a
// temporary directory, then `postgres` on a free loopback port with its socket in that directory.
// The machine's own server (5432) is never used, started or stopped. Run as root (CI containers),
// the server runs as the postgres system user: PostgreSQL refuses to run as root. Without the
// binaries the tests say so loudly, and under CI they fail.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { freePort } from './processes.js';

const ROOT = '/usr/lib/postgresql';

/** The directory of the newest installed PostgreSQL's initdb and postgres, or undefined (after a loud warning). */
export function postgresBinaries(what: string): string | undefined {
  const versions = fs.existsSync(ROOT)
    ? fs
        .readdirSync(ROOT)
        .filter((version) => fs.existsSync(path.join(ROOT, version, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const found = versions[0];
  if (found !== undefined) return path.join(ROOT, found, 'bin');
  const message = `no PostgreSQL server binaries under ${ROOT}: ${what} NOT running (apt-get install postgresql)`;
  if (process.env.CI) throw new Error(message);
  console.warn(`\n*** WARNING: ${message} ***\n`);
  return undefined;
}

/** Who the server runs as: the postgres system user when we are root, else ourselves. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const uid = id('-u');
  const gid = id('-g');
  if (!Number.isInteger(uid) || uid <= 0)
    throw new Error('running as root, and there is no postgres user to run PostgreSQL as');
  return { uid, gid };
}

export class PostgresServer {
  private child: ChildProcess | undefined;
  private log = '';

  private constructor(
    private readonly bin: string,
    private readonly dir: string,
    readonly port: number,
    private readonly user: { uid: number; gid: number } | undefined,
  ) {}

  /**
   * initdb in a new temporary directory (of its own: the server's user must be able to reach
   * it), then starts the server; resolves once it answers. stop() removes the directory.
   */
  static async start(bin: string): Promise<PostgresServer> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-pg-'));
    const user = serverUser();
    if (user) fs.chownSync(dir, user.uid, user.gid);
    const init = spawnSync(
      path.join(bin, 'initdb'),
      ['-D', path.join(dir, 'data'), '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-locale', '--no-sync'],
      { encoding: 'utf8', ...user },
    );
    if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}${init.stdout}`);
    const server = new PostgresServer(bin, dir, await freePort(), user);
    await server.launch();
    return server;
  }

  /** The server's `postgres` database. */
  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  /** A database of that name on the server, created; its URL. */
  async createDatabase(name: string): Promise<string> {
    const client = new pg.Client({ connectionString: this.url });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE ${name}`);
    } finally {
      await client.end();
    }
    return `postgres://postgres@127.0.0.1:${this.port}/${name}`;
  }

  /** kill -9 of the server and every process it started (its process group), as a crash would. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(-child.pid, 'SIGKILL');
    await exited;
  }

  /** Starts the killed server again on the same port and data: it recovers from its WAL. */
  async restart(): Promise<void> {
    await this.launch();
  }

  logs(): string {
    return this.log.slice(-5_000);
  }

  /** A fast shutdown, then the directory goes. */
  async stop(): Promise<void> {
    const child = this.child;
    if (child?.pid && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGINT');
      const timer = setTimeout(() => child.pid && process.kill(-child.pid, 'SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  /** Starts the server and waits until it takes connections (retrying a start that failed at once). */
  private async launch(): Promise<void> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      // prettier-ignore
      const child = spawn(path.join(this.bin, 'postgres'), [
        '-D', path.join(this.dir, 'data'), '-p', String(this.port), '-h', '127.0.0.1', '-k', this.dir,
        // A process crash loses nothing the OS holds, so the test spares the shared disk its flushes.
        '-c', 'fsync=off', '-c', 'max_connections=200', '-c', 'shared_buffers=32MB',
      ], { detached: true, stdio: ['ignore', 'pipe', 'pipe'], ...this.user });
      const keep = (chunk: Buffer) => (this.log = (this.log + chunk.toString('utf8')).slice(-50_000));
      child.stdout.on('data', keep);
      child.stderr.on('data', keep);
      this.child = child;
      while (child.exitCode === null && child.signalCode === null) {
        if (await answers(this.url)) return;
        if (Date.now() > deadline) throw new Error(`PostgreSQL did not start within 60 s:\n${this.logs()}`);
        await sleep(100);
      }
      if (Date.now() > deadline) throw new Error(`PostgreSQL did not start:\n${this.logs()}`);
      await sleep(500);
    }
  }
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    // Not up yet (or recovering): the caller asks again.
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}
