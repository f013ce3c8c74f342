// Command-line options generated from the configuration schema, so every setting has exactly
// one flag, one environment variable and one description.
import type { Command } from 'commander';
import { parseDuration, settings, type CliValues, type SettingName } from '../config/config.js';
import { AppError } from '../core/errors.js';

/** The default as a person would type it (10MiB, 15m), or undefined when there is none to show. */
export function shownDefault(name: SettingName): string | undefined {
  const spec = settings[name] as { default: unknown; parse: { show?: (value: unknown) => string } };
  const value = spec.default;
  if (typeof value === 'boolean' || value === '' || (Array.isArray(value) && value.length === 0)) return undefined;
  if (spec.parse.show) return spec.parse.show(value);
  return Array.isArray(value) ? value.join(',') : String(value);
}

/**
 * Adds each setting's flag. `described` replaces a setting's help where the command uses it for
 * something other than what `serve` does (`tenant create` prints addresses, it listens on nothing).
 */
export function addSettingOptions(
  command: Command,
  names: SettingName[],
  described: Partial<Record<SettingName, string>> = {},
): Command {
  for (const name of names) {
    const spec = settings[name];
    if ('secret' in spec) continue;
    const shown = shownDefault(name);
    const help = `${described[name] ?? spec.description}${shown === undefined ? '' : ` (default: ${shown})`} [env ${spec.env}]`;
    if (typeof spec.default === 'boolean') command.option(`--${spec.flag}`, help);
    else command.option(`--${spec.flag} <value>`, help);
  }
  return command;
}

export function settingValues(options: Record<string, unknown>, names: SettingName[]): CliValues {
  const values: CliValues = {};
  for (const name of names) {
    const key = settings[name].flag.replace(/-([a-z])/g, (_match, letter: string) => letter.toUpperCase());
    const value = options[key];
    if (value !== undefined) values[name] = value as string | boolean;
  }
  return values;
}

export const storageSettings: SettingName[] = ['dataDir', 'databaseUrl'];

/** `--since 2026-11-22T10:00:00Z`, or a span back from now such as `15m`, `2h`, `7d`. */
export function parseTimeOption(flag: string, value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  // A span needs its unit here: a bare number would be ambiguous beside an ISO time.
  const span = /^\d+\s*[smhd]$/.test(value.trim()) ? parseDuration(value) : undefined;
  if (span !== undefined) return now - span;
  const parsed = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(parsed)) {
    throw new AppError(
      'invalid_request',
      `${flag} must be an ISO 8601 time (2026-11-22T10:00:00Z) or a span such as 15m, 2h, 7d; got ${JSON.stringify(value)}`,
    );
  }
  return parsed;
}

/** A value commander already requires (`.requiredOption`); the check narrows its type. */
export function requiredValue(flag: string, value: string | undefined): string {
  if (value === undefined) throw new AppError('invalid_request', `${flag} is required`);
  return value;
}

export function parsePositiveInteger(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new AppError('invalid_request', `${flag} must be a positive integer; got ${JSON.stringify(value)}`);
  return Number(value);
}
