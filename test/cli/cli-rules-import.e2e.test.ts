// `sightline rules import` as an operator uses it: the real command on a zip laid out like
// SigmaHQ's release packages (rules/**/*.yml plus the licence) and on a folder, both built from
// SigmaHQ's own rule files; the same report as `rules test`; and packages that are not zips,
// climb out of their directory, link elsewhere or inflate past the limits, each refused with
// its code and nothing half-imported.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/databases.js';
import { runCli } from '../helpers/cli.js';
import { buildZip, type ZipEntry } from '../helpers/zip.js';

import { SIGMAHQ } from '../helpers/sigmahq.js';
const SIGMA = SIGMAHQ;
/** SigmaHQ rules: four whose logsource Sightline produces, two whose logsource nothing produces. */
const REACHABLE = [
  'rules/windows/process_creation/proc_creation_win_7zip_exfil_dmp_files.yml',
  'rules/windows/process_creation/proc_creation_win_7zip_password_compression.yml',
  'rules/linux/process_creation/proc_creation_lnx_at_command.yml',
  'rules/cloud/aws/cloudtrail/aws_cloudtrail_bucket_deleted.yml',
];
const UNREACHABLE = [
  'rules/category/database/db_anomalous_query.yml',
  'rules/cloud/azure/privileged_identity_management/azure_pim_account_stale.yml',
];
const SUBSET = [...REACHABLE, ...UNREACHABLE];

function sigmaEntries(): ZipEntry[] {
  return [
    { name: 'LICENSE', data: fs.readFileSync(path.join(SIGMA, 'LICENSE')) },
    { name: 'rules/', data: '', stored: true, mode: 0o040755 },
    ...SUBSET.map((file) => ({ name: file, data: fs.readFileSync(path.join(SIGMA, file)) })),
  ];
}

function writeZip(dir: string, name: string, entries: readonly ZipEntry[]): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, buildZip(entries));
  return file;
}

function jsonLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Every file under `dir`, relative, sorted. */
function tree(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();
}

const made: string[] = [];
after(() => made.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

function workDir(): string {
  const dir = tempDir('sightline-import-');
  made.push(dir);
  return dir;
}

describe('sightline rules import', () => {
  test('a SigmaHQ-style zip lands under rule-packages/ with the rules test report, byte for byte', async () => {
    const work = workDir();
    const data = path.join(work, 'data');
    const zip = writeZip(work, 'sigma_core.zip', sigmaEntries());
    const result = await runCli(['rules', 'import', zip, '--data', data, '--json']);
    assert.equal(result.code, 0, result.stderr);
    const lines = jsonLines(result.stdout);
    const done = lines.at(-1)!;
    assert.equal(done.imported, 'sigma_core');
    assert.equal(done.files, SUBSET.length);
    assert.equal(done.replaced, false);
    const totals = lines.at(-2)!;
    assert.equal(totals.loaded, SUBSET.length);
    assert.equal(totals.unreachable, UNREACHABLE.length);
    assert.equal(totals.rejected, 0);
    assert.deepEqual(totals.by_logsource && Object.keys(totals.by_logsource).includes('/database/'), true);
    const unreachable = lines.filter((line) => line.status === 'unreachable').map((line) => String(line.file));
    assert.deepEqual(
      unreachable.map((file) => path.relative(path.join(data, 'rule-packages', 'sigma_core'), file)).sort(),
      [...UNREACHABLE].sort(),
    );
    const installed = path.join(data, 'rule-packages', 'sigma_core');
    assert.deepEqual(tree(installed), ['LICENSE', ...SUBSET].sort());
    for (const file of SUBSET)
      assert.ok(fs.readFileSync(path.join(installed, file)).equals(fs.readFileSync(path.join(SIGMA, file))), file);
    assert.deepEqual(fs.readdirSync(path.join(data, 'rule-packages')), ['sigma_core'], 'no staging left behind');
  });

  test('a folder imports under its own name (or --name) and a second import replaces the first', async () => {
    const work = workDir();
    const data = path.join(work, 'data');
    const folder = path.join(work, 'team-rules');
    for (const file of REACHABLE.slice(0, 2)) {
      fs.mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
      fs.copyFileSync(path.join(SIGMA, file), path.join(folder, file));
    }
    fs.writeFileSync(path.join(folder, 'notes.txt'), 'not a rule');
    const first = await runCli(['rules', 'import', folder, '--data', data]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^loaded {4}.*proc_creation_win_7zip_exfil_dmp_files\.yml/m);
    assert.match(
      first.stdout,
      /^total: 2 loaded \(2 reachable, 0 unreachable; 2 detection, 0 correlation, 0 filters applied\), 0 rejected$/m,
    );
    assert.match(
      first.stdout,
      /^imported team-rules: 2 rule files into .*rule-packages\/team-rules; restart the server/m,
    );
    assert.deepEqual(tree(path.join(data, 'rule-packages', 'team-rules')), REACHABLE.slice(0, 2).sort());

    fs.rmSync(path.join(folder, REACHABLE[1]!));
    const again = await runCli(['rules', 'import', folder, '--data', data, '--quiet']);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^replaced team-rules: 1 rule files/m);
    assert.doesNotMatch(again.stdout, /^loaded/m, '--quiet leaves loaded rules out');
    assert.deepEqual(tree(path.join(data, 'rule-packages', 'team-rules')), [REACHABLE[0]!]);

    const named = await runCli(['rules', 'import', folder, '--data', data, '--name', '../escape']);
    assert.equal(named.code, 1);
    assert.match(named.stderr, /^error \(invalid_request\): package name "\.\.\/escape"/);
  });

  test('bad packages are refused with their code and leave the imported rules as they were', async () => {
    const work = workDir();
    const data = path.join(work, 'data');
    const good = writeZip(work, 'sigma_core.zip', sigmaEntries());
    assert.equal((await runCli(['rules', 'import', good, '--data', data])).code, 0);
    const before = tree(path.join(data, 'rule-packages'));
    const rule = fs.readFileSync(path.join(SIGMA, REACHABLE[0]!));
    const zeros = Buffer.alloc(3 * 1024 * 1024, 0x20);

    const bad: { name: string; file: string; code: string; detail: RegExp }[] = [
      {
        name: 'not a zip',
        file: path.join(work, 'sigma_core.zip.txt'),
        code: 'rule_package_invalid',
        detail: /not a readable zip/,
      },
      {
        name: 'traversal after a good entry',
        file: writeZip(work, 'sigma_core.zip', [
          { name: 'rules/ok.yml', data: rule },
          { name: 'rules/../../evil.yml', data: rule },
        ]),
        code: 'rule_package_unsafe_entry',
        detail: /entry "rules\/\.\.\/\.\.\/evil\.yml" leaves the package/,
      },
      {
        name: 'absolute path',
        file: writeZip(work, 'abs.zip', [{ name: '/tmp/evil.yml', data: rule }]),
        code: 'rule_package_unsafe_entry',
        detail: /entry "\/tmp\/evil\.yml" is an absolute path/,
      },
      {
        name: 'symbolic link',
        file: writeZip(work, 'link.zip', [
          { name: 'rules/link.yml', data: '/etc/passwd', stored: true, mode: 0o120777 },
        ]),
        code: 'rule_package_unsafe_entry',
        detail: /rules\/link\.yml is a symbolic link/,
      },
      {
        name: 'a rule file that inflates past 1 MiB',
        file: writeZip(work, 'bomb.zip', [{ name: 'rules/bomb.yml', data: zeros }]),
        code: 'rule_package_too_large',
        detail: /rules\/bomb\.yml is larger than 1048576 bytes uncompressed/,
      },
      {
        name: 'headers that understate the size',
        file: writeZip(work, 'liar.zip', [{ name: 'rules/liar.yml', data: zeros, claimedSize: 100 }]),
        code: 'rule_package_invalid',
        detail: /entry rules\/liar\.yml is damaged \(too many bytes/,
      },
      {
        name: 'no rule in it',
        file: writeZip(work, 'empty.zip', [{ name: 'README.md', data: '# nothing' }]),
        code: 'rule_package_empty',
        detail: /no Sigma rule loaded/,
      },
      { name: 'missing', file: path.join(work, 'absent.zip'), code: 'rule_package_invalid', detail: /cannot be read/ },
    ];
    fs.writeFileSync(bad[0]!.file, 'PK but not really');
    for (const item of bad) {
      const result = await runCli(['rules', 'import', item.file, '--data', data, '--name', 'sigma_core']);
      assert.equal(result.code, 1, `${item.name}: ${result.stdout}`);
      assert.match(result.stderr, new RegExp(`^error \\(${item.code}\\): `), item.name);
      assert.match(result.stderr, item.detail, item.name);
      assert.match(result.stderr, /nothing was imported|no Sigma rule loaded|cannot be read/, item.name);
      assert.deepEqual(
        tree(path.join(data, 'rule-packages')),
        before,
        `${item.name}: the imported rules are unchanged`,
      );
      assert.deepEqual(
        fs.readdirSync(path.join(data, 'rule-packages')),
        ['sigma_core'],
        `${item.name}: no staging left`,
      );
    }
    assert.equal(fs.existsSync(path.join(work, 'evil.yml')), false);
    assert.equal(fs.existsSync(path.join(data, 'evil.yml')), false);
  });
});
