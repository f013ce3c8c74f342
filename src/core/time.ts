// Times that arrive as API input. The schemas check the ISO 8601 shape; some shapes pass it and
// still name no instant (a leap second, 23:59:60), so each is parsed here once, as a 400.
import { AppError } from './errors.js';

export function parseIsoTime(field: string, value: string): number;
export function parseIsoTime(field: string, value: string | undefined): number | undefined;
export function parseIsoTime(field: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const time = Date.parse(value);
  if (Number.isNaN(time))
    throw new AppError('invalid_request', `${field} must be an ISO 8601 date-time (got ${JSON.stringify(value)})`, {
      extensions: { field },
    });
  return time;
}
