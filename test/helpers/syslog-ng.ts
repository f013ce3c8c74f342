// The real syslog-ng for the forwarder tests: whether Debian's package is installed (a missing
// one fails under CI and is announced loudly elsewhere), and a foreground syslog-ng run on a
// configuration body, with its state files in a directory of the test's.
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';

/** Whether syslog-ng runs here; when not, says which tests are NOT running (and fails under CI). */
export function syslogNgAvailable(what: string): boolean {
  if (spawnSync('syslog-ng', ['--version'], { stdio: 'ignore' }).status === 0) return true;
  const message = `syslog-ng is not installed: ${what} are NOT running (apt-get install syslog-ng-core syslog-ng-mod-http; .ci/run does)`;
  if (process.env.CI) throw new Error(message);
  console.warn(`\n*** WARNING: ${message} ***\n`);
  return false;
}

/** Starts syslog-ng in the foreground on `config` (the version line is added); stderr's tail is kept. */
export function startSyslogNg(config: string, stateDir: string): { process: ChildProcess; stderr: () => string } {
  fs.mkdirSync(stateDir, { recursive: true });
  const file = path.join(stateDir, 'syslog-ng.conf');
  fs.writeFileSync(file, `@version: 3.38\noptions { stats-freq(0); };\n${config}`);
  const child = spawn(
    'syslog-ng',
    [
      '-F',
      '-f',
      file,
      '-R',
      path.join(stateDir, 'persist'),
      '-p',
      path.join(stateDir, 'pid'),
      '-c',
      path.join(stateDir, 'ctl'),
      '--no-caps',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-20_000)));
  return { process: child, stderr: () => stderr };
}
