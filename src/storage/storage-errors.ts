// What a storage failure is, in words an operator can act on — the disk is full, the database
// is read-only, locked, failing its I/O, or unreachable — read from the drivers' error codes
// (SQLite's result codes, PostgreSQL's SQLSTATE, Node's socket errors), never from message text.
// Clients get a 503 to retry that says which, never the database's own message (which can
// quote record data); the cause is kept for the server log.
import { AppError } from '../core/errors.js';

export type StorageFault = 'disk_full' | 'read_only' | 'locked' | 'io_error' | 'unreachable';

const FAULT_TEXT: Record<StorageFault, string> = {
  disk_full: 'the disk holding the database is full',
  read_only: 'the database is read-only',
  locked: 'the database is locked by another writer',
  io_error: 'the database could not read or write its files',
  unreachable: 'the database server cannot be reached',
};

export function describeFault(fault: StorageFault): string {
  return FAULT_TEXT[fault];
}

function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}

/** The storage fault behind an error, if it is one (its cause chain is followed). */
export function storageFault(error: unknown): StorageFault | undefined {
  for (let current: unknown = error, hops = 0; current !== undefined && hops < 5; hops++) {
    const fault = faultOfCode(codeOf(current));
    if (fault) return fault;
    current = current instanceof Error ? current.cause : undefined;
  }
  return undefined;
}

function faultOfCode(code: string | undefined): StorageFault | undefined {
  if (code === undefined) return undefined;
  // SQLite (better-sqlite3 reports extended codes such as SQLITE_IOERR_WRITE).
  if (code === 'SQLITE_FULL') return 'disk_full';
  if (code.startsWith('SQLITE_READONLY')) return 'read_only';
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'locked';
  if (code.startsWith('SQLITE_IOERR') || code === 'SQLITE_CANTOPEN') return 'io_error';
  // PostgreSQL SQLSTATE: class 53 insufficient resources, 25006 read-only transaction, class 57P
  // operator intervention (shutdown, starting up), class 08 connection exceptions; lock waits.
  if (code === '53100') return 'disk_full';
  if (code === '25006') return 'read_only';
  if (code === '55P03' || code === '40P01') return 'locked';
  if (code === '58030') return 'io_error';
  if (code.startsWith('57P') || code.startsWith('08')) return 'unreachable';
  // The PostgreSQL server's socket.
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE'].includes(code))
    return 'unreachable';
  return undefined;
}

/** Seconds a client should wait before retrying after a fault (a full disk is not freed in 5 s). */
function retryAfter(fault: StorageFault | undefined): string {
  return fault === 'disk_full' || fault === 'read_only' ? '30' : '5';
}

/** The 503 for a storage failure: `what` failed (the fault named when known); `then` what the client is told to do. */
function unavailable(cause: unknown, fault: StorageFault | undefined, what: string, then: string): AppError {
  const why = fault ? ` (${describeFault(fault)})` : '';
  return new AppError('storage_unavailable', `${what}${why}; ${then}`, {
    headers: { 'Retry-After': retryAfter(fault) },
    cause,
    ...(fault ? { extensions: { fault } } : {}),
  });
}

export function storageUnavailable(cause: unknown): AppError {
  return unavailable(
    cause,
    storageFault(cause),
    'the record log could not be written',
    'nothing of this request was stored, retry later',
  );
}

export function searchIndexUnavailable(cause: unknown): AppError {
  return unavailable(
    cause,
    storageFault(cause),
    'the search index could not be brought up to date for this text search',
    'retry later',
  );
}

/**
 * What a request that failed on a storage fault is answered (503 with Retry-After, the fault
 * named), rather than a masked 500: the client should retry. Undefined for any other error.
 */
export function databaseUnavailable(cause: unknown): AppError | undefined {
  const fault = storageFault(cause);
  return fault && unavailable(cause, fault, 'the database could not complete this request', 'retry later');
}
