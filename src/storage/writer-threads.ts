// A storage port for worker threads that write the database beside the main thread (the
// detection thread): what the database needs them to share, so that their writes take turns
// well. On SQLite that is the write gate (sqlite-write-gate.ts); PostgreSQL needs nothing.

export interface WriterThreads {
  /** Main thread: what to hand a worker thread that will write (undefined: nothing). */
  share(): SharedArrayBuffer | undefined;
  /** In that worker thread, once: its transactions use what it was handed. */
  join(shared: SharedArrayBuffer | undefined): void;
  /** Main thread, when such a worker has ended (even by a crash): whatever it held is let go. */
  ended(shared: SharedArrayBuffer | undefined, threadId: number): void;
}

export const noWriterThreads: WriterThreads = {
  share: () => undefined,
  join: () => undefined,
  ended: () => undefined,
};
