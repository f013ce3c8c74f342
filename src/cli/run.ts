// Runs the CLI from source (`node --import tsx src/cli/run.ts …`), as tests and benchmarks do.
import { main } from './main.js';
import { AppError } from '../core/errors.js';

main(process.argv).catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof AppError ? `error (${error.code}): ${error.detail}` : error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exitCode = 1;
});
