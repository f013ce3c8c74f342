// Runs the CLI from source (`node --import tsx src/cli/run.ts …`), as tests and benchmarks do.
import { main } from './main.js';
import { AppError } from '../core/errors.js';
import { ConfigError } from '../config/config.js';

main(process.argv).catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof AppError ? `error (${error.code}): ${error.detail}` : error instanceof Error ? error.message : String(error)}\n`,
  );
  // A bad setting is a usage error: exit 2, like a bad flag.
  process.exitCode = error instanceof ConfigError ? 2 : 1;
});
