// What a client sees when the record log cannot be written or the search index cannot catch
// up: a 503 to retry, never the database's own message (which can quote record data); the
// cause is kept for the server log.
import { AppError } from '../core/errors.js';

export function storageUnavailable(cause: unknown): AppError {
  return new AppError(
    'storage_unavailable',
    'the record log could not be written; nothing of this request was stored, retry later',
    {
      headers: { 'Retry-After': '5' },
      cause,
    },
  );
}

export function searchIndexUnavailable(cause: unknown): AppError {
  return new AppError(
    'storage_unavailable',
    'the search index could not be brought up to date for this text search; retry later',
    {
      headers: { 'Retry-After': '5' },
      cause,
    },
  );
}
