// The rules of retention that do not touch the database: which number of days applies to a
// tenant, and what a valid policy and a valid range are.
import { AppError } from '../core/errors.js';

export const DAY_MS = 86_400_000;
/** The widest range an operator may allow: one day to thirty years. */
export const MIN_DAYS = 1;
export const MAX_DAYS = 10_950;
export const MAX_HOLD_REASON_LENGTH = 500;

export interface Limits {
  min_days: number;
  max_days: number;
  default_days: number;
}

/**
 * The tenant's own days, else the default, brought inside the allowed range (an operator who
 * narrows the range after a tenant chose applies the new bound without rewriting the tenant).
 */
export function effectiveDays(telemetryDays: number | null, limits: Limits): number {
  const days = telemetryDays ?? limits.default_days;
  return Math.min(limits.max_days, Math.max(limits.min_days, days));
}

export function checkDays(days: number, limits: Limits, field = 'telemetry_days'): void {
  if (!Number.isInteger(days) || days < limits.min_days || days > limits.max_days)
    throw new AppError(
      'retention_out_of_range',
      `${field} must be a whole number of days from ${limits.min_days} to ${limits.max_days} (the range the platform operator allows); got ${days}`,
      { extensions: { field, min_days: limits.min_days, max_days: limits.max_days } },
    );
}

export function checkLimits(limits: Limits): void {
  for (const [field, value] of Object.entries(limits))
    if (!Number.isInteger(value) || value < MIN_DAYS || value > MAX_DAYS)
      throw new AppError(
        'invalid_request',
        `${field} must be a whole number of days from ${MIN_DAYS} to ${MAX_DAYS}; got ${value}`,
        {
          extensions: { field },
        },
      );
  if (limits.min_days > limits.max_days)
    throw new AppError(
      'invalid_request',
      `min_days (${limits.min_days}) must not exceed max_days (${limits.max_days})`,
      {
        extensions: { field: 'min_days' },
      },
    );
  if (limits.default_days < limits.min_days || limits.default_days > limits.max_days)
    throw new AppError(
      'invalid_request',
      `default_days must lie within min_days..max_days (${limits.min_days}..${limits.max_days}); got ${limits.default_days}`,
      { extensions: { field: 'default_days' } },
    );
}
