// Runs the real `sightline` command as a child process: the compiled one (dist/, as `npx sightline`
// runs it), which scripts/run-tests.mjs builds from the source before any test starts.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './processes.js';

export const cliEntry = path.join(repoRoot, 'dist/cli/run.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function sightlineArgs(args: string[]): string[] {
  return [cliEntry, ...args];
}

/** Runs the CLI; `input`, when given, is written to its stdin (else stdin is closed). */
export function runCli(args: string[], env: Record<string, string> = {}, input?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, sightlineArgs(args), {
      cwd: repoRoot,
      env: { ...process.env, ...env },
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (input !== undefined) child.stdin!.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
