// What declaring one setting takes. Kept apart from the table so that settings.ts and
// summary-settings.ts can both declare settings without importing each other.
export interface Setting<T> {
  /** Long CLI flag without the dashes, e.g. `base-domain`. */
  flag: string;
  /** A secret: read from the environment only (flags are visible in `ps`) and never echoed. */
  secret?: true;
  env: string;
  /** Help text of the flag; the CLI appends the environment variable. */
  description: string;
  /** Used when neither flag nor variable is given; taken as is, not parsed. */
  default: NoInfer<T>;
  parse(raw: string): T;
}

/** Types a setting by its parser, so the default must be a value the parser could produce. */
export function setting<T>(spec: Setting<T>): Setting<T> {
  return spec;
}
