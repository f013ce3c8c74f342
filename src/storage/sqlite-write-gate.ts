// SQLite has one write lock per database, and a connection that finds it taken waits in SQLite's
// busy handler, which sleeps 1, 2, 5, 10 … up to 100 ms between tries: under sustained ingest
// the record writer and the detection thread, each taking the lock dozens of times a second,
// spent much of their time asleep with the lock free (the writer's 201s waited on it). The
// threads of this process that write (the record writer, detection) first pass this gate, a
// mutex in shared memory: a thread waiting for it wakes the moment it is released. SQLite's lock
// still guards against every other writer (the main thread's API writes, the purge thread,
// another process), which are rare.
//
// The gate's cells live in a SharedArrayBuffer made once per database file by the main thread
// and handed to each writing thread. If a thread dies holding it, the main thread releases it
// for that thread (`releaseFor`), so a crash never leaves the gate shut.
import { threadId } from 'node:worker_threads';

const HOLDER = 0;
/** How often a waiter looks again even without a wake-up (a missed notify costs at most this). */
const RECHECK_MS = 50;

export class WriteGate {
  private readonly cells: Int32Array;
  /** This thread's mark in the gate (never 0, which means open). */
  private readonly self = threadId + 1;

  constructor(shared: SharedArrayBuffer) {
    this.cells = new Int32Array(shared);
  }

  /** Waits until the gate is this thread's; throws SQLITE_BUSY after `timeoutMs`, as SQLite would. */
  enter(timeoutMs: number): void {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const holder = Atomics.compareExchange(this.cells, HOLDER, 0, this.self);
      if (holder === 0) return;
      if (holder === this.self)
        throw new Error('the write gate is already this thread’s: a transaction inside a transaction');
      const left = deadline - performance.now();
      if (left <= 0) throw Object.assign(new Error('database is locked (write gate)'), { code: 'SQLITE_BUSY' });
      Atomics.wait(this.cells, HOLDER, holder, Math.min(RECHECK_MS, left));
    }
  }

  /** Opens the gate, if this thread holds it, and wakes one waiter. */
  leave(): void {
    if (Atomics.compareExchange(this.cells, HOLDER, this.self, 0) === this.self) Atomics.notify(this.cells, HOLDER, 1);
  }
}

/** The gates of this process, by database file: each writing thread is handed its file's. */
const gates = new Map<string, SharedArrayBuffer>();

/** The shared cells of the gate of the database at `path` (main thread: made on first use). */
export function writeGateFor(path: string): SharedArrayBuffer {
  let shared = gates.get(path);
  if (!shared) gates.set(path, (shared = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT)));
  return shared;
}

/** A thread that ended (crashed, or was cut off at shutdown) may have held the gate: open it. */
export function releaseFor(shared: SharedArrayBuffer, deadThreadId: number): void {
  const cells = new Int32Array(shared);
  if (Atomics.compareExchange(cells, HOLDER, deadThreadId + 1, 0) === deadThreadId + 1) Atomics.notify(cells, HOLDER);
}

/** The gate this thread's SQLite transactions pass, once it has joined one (sqlite-dialect.ts). */
let joined: WriteGate | undefined;

export function joinWriteGate(shared: SharedArrayBuffer): void {
  joined = new WriteGate(shared);
}

export function joinedWriteGate(): WriteGate | undefined {
  return joined;
}
