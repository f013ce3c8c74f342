// Online backup and restore of an embedded deployment's data directory. The database is copied
// with SQLite's online backup API in one step, so the copy is one consistent snapshot taken while
// the server keeps writing (WAL: readers never block the writer); the deployment's keys and
// settings live in that database, and every other file of the data directory is copied beside
// it. A manifest written last lists each file with its size and SHA-256: a backup without one is
// unfinished, and restore checks every entry and the database's own integrity before it writes.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { AppError } from '../core/errors.js';
import { migrationNames } from './migrate.js';

export const DATABASE_FILE = 'sightline.db';
export const MANIFEST_FILE = 'manifest.json';
const FORMAT = 'sightline-backup';
const VERSION = 1;
/** The live database's companions: never copied as files (the backup API reads through them). */
const DATABASE_COMPANIONS = new Set([
  DATABASE_FILE,
  `${DATABASE_FILE}-wal`,
  `${DATABASE_FILE}-shm`,
  `${DATABASE_FILE}-journal`,
]);

export interface BackupFile {
  /** Relative to the data directory, '/'-separated. */
  path: string;
  bytes: number;
  sha256: string;
}

export interface BackupManifest {
  format: typeof FORMAT;
  version: typeof VERSION;
  created_at: string;
  /** The schema migrations the copied database has applied. */
  migrations: string[];
  tenants: number;
  telemetry_records: number;
  files: BackupFile[];
}

/** Copies the data directory's database (online) and files into `to`, which must be absent or empty. */
export async function backupDataDir(dataDir: string, to: string, now = Date.now()): Promise<BackupManifest> {
  const source = path.resolve(dataDir);
  const target = path.resolve(to);
  const databasePath = path.join(source, DATABASE_FILE);
  if (!fs.existsSync(databasePath))
    throw new AppError(
      'invalid_request',
      `no embedded database at ${databasePath}: --data must name the data directory of a Sightline that uses the embedded database`,
    );
  if (target === source) throw new AppError('invalid_request', '--to must be another directory than --data');
  requireEmptyOrAbsent(target, '--to');
  fs.mkdirSync(target, { recursive: true });

  const connection = new SQLite(databasePath, { fileMustExist: true });
  try {
    connection.pragma('busy_timeout = 10000');
    // All remaining pages in one step: one read transaction, hence one snapshot. Smaller steps
    // would restart whenever the server commits in between, and never finish under load.
    await connection.backup(path.join(target, DATABASE_FILE), { progress: () => 0x7fffffff });
  } finally {
    connection.close();
  }
  const summary = inspectDatabase(path.join(target, DATABASE_FILE), { standalone: true });
  const files: BackupFile[] = [describeFile(target, DATABASE_FILE)];
  for (const relative of listDataFiles(source, target)) {
    const destination = path.join(target, relative);
    fs.mkdirSync(path.dirname(destination), { recursive: true });
    fs.copyFileSync(path.join(source, relative), destination);
    fsyncFile(destination);
    files.push(describeFile(target, relative));
  }
  const manifest: BackupManifest = {
    format: FORMAT,
    version: VERSION,
    created_at: new Date(now).toISOString(),
    ...summary,
    files,
  };
  writeFileDurably(path.join(target, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/** Checks a backup: its manifest, every file's size and digest, and the database's integrity. */
export function verifyBackup(from: string): BackupManifest {
  const dir = path.resolve(from);
  const manifestPath = path.join(dir, MANIFEST_FILE);
  if (!fs.existsSync(manifestPath))
    throw new AppError(
      'backup_invalid',
      `${manifestPath} is missing: ${dir} is not a Sightline backup, or its backup did not finish`,
    );
  const manifest = parseManifest(manifestPath);
  for (const file of manifest.files) {
    const full = insideDir(dir, file.path);
    if (!fs.existsSync(full))
      throw new AppError('backup_invalid', `${file.path} is listed in the manifest but missing`);
    const actual = describeFile(dir, file.path);
    if (actual.bytes !== file.bytes || actual.sha256 !== file.sha256)
      throw new AppError(
        'backup_invalid',
        `${file.path} differs from the manifest (changed or damaged since the backup)`,
      );
  }
  if (!manifest.files.some((file) => file.path === DATABASE_FILE))
    throw new AppError('backup_invalid', `the manifest lists no ${DATABASE_FILE}`);
  const unknown = manifest.migrations.filter((name) => !migrationNames.includes(name));
  if (unknown.length > 0)
    throw new AppError(
      'backup_invalid',
      `the backup's database has migrations this version of Sightline does not know (${unknown.join(', ')}): restore it with the version that made it or a newer one`,
    );
  inspectDatabase(path.join(dir, DATABASE_FILE), { standalone: false });
  return manifest;
}

/** Verifies the backup in `from` and copies it into `dataDir` (absent or empty unless `force`). */
export function restoreDataDir(from: string, dataDir: string, force = false): BackupManifest {
  const manifest = verifyBackup(from);
  const source = path.resolve(from);
  const target = path.resolve(dataDir);
  if (!force) requireEmptyOrAbsent(target, '--data');
  fs.mkdirSync(target, { recursive: true });
  // A forced restore replaces the database whole: a WAL left beside it would be replayed into it.
  for (const companion of DATABASE_COMPANIONS) fs.rmSync(path.join(target, companion), { force: true });
  for (const file of manifest.files) {
    const destination = insideDir(target, file.path);
    fs.mkdirSync(path.dirname(destination), { recursive: true });
    const partial = `${destination}.restoring`;
    fs.copyFileSync(insideDir(source, file.path), partial);
    fsyncFile(partial);
    fs.renameSync(partial, destination);
  }
  return manifest;
}

function requireEmptyOrAbsent(dir: string, flag: string): void {
  if (!fs.existsSync(dir)) return;
  if (!fs.statSync(dir).isDirectory()) throw new AppError('invalid_request', `${flag} ${dir} is not a directory`);
  if (fs.readdirSync(dir).length > 0)
    throw new AppError(
      'backup_target_not_empty',
      `${flag} ${dir} is not empty: give a new or empty directory${flag === '--data' ? ' (or --force to replace what is there)' : ''}`,
    );
}

/** integrity_check, plus what the manifest records; `standalone` turns the copy's WAL off. */
function inspectDatabase(
  file: string,
  { standalone }: { standalone: boolean },
): Pick<BackupManifest, 'migrations' | 'tenants' | 'telemetry_records'> {
  const connection = new SQLite(file, { fileMustExist: true, readonly: !standalone });
  try {
    // A backup is one self-contained file: no -wal beside it.
    if (standalone) connection.pragma('journal_mode = DELETE');
    const problems = connection.pragma('integrity_check', { simple: false }) as { integrity_check: string }[];
    if (problems.length !== 1 || problems[0]?.integrity_check !== 'ok')
      throw new AppError(
        'backup_invalid',
        `${file} fails SQLite's integrity check: ${problems
          .slice(0, 3)
          .map((row) => row.integrity_check)
          .join('; ')}`,
      );
    const count = (table: string) =>
      (connection.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    const migrations = (
      connection.prepare('SELECT name FROM kysely_migration ORDER BY name').all() as { name: string }[]
    ).map((row) => row.name);
    return { migrations, tenants: count('tenants'), telemetry_records: count('telemetry_records') };
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError('backup_invalid', `${file} is not a readable Sightline database: ${(error as Error).message}`, {
      cause: error,
    });
  } finally {
    connection.close();
  }
}

/** Regular files under the data directory other than the live database, skipping `exclude`. */
function listDataFiles(root: string, exclude: string): string[] {
  const found: string[] = [];
  const walk = (dir: string, prefix: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (full === exclude) continue;
      if (entry.isDirectory()) walk(full, relative);
      else if (entry.isFile() && !(prefix === '' && DATABASE_COMPANIONS.has(entry.name))) found.push(relative);
    }
  };
  walk(root, '');
  return found.sort();
}

function describeFile(dir: string, relative: string): BackupFile {
  const full = insideDir(dir, relative);
  const hash = crypto.createHash('sha256');
  const fd = fs.openSync(full, 'r');
  const buffer = Buffer.alloc(1 << 20);
  let bytes = 0;
  try {
    for (let read = fs.readSync(fd, buffer); read > 0; read = fs.readSync(fd, buffer)) {
      hash.update(buffer.subarray(0, read));
      bytes += read;
    }
  } finally {
    fs.closeSync(fd);
  }
  return { path: relative, bytes, sha256: hash.digest('hex') };
}

/** A manifest path resolved inside `dir`; one that climbs out of it marks a forged manifest. */
function insideDir(dir: string, relative: string): string {
  const full = path.resolve(dir, ...relative.split('/'));
  if (!full.startsWith(`${dir}${path.sep}`))
    throw new AppError('backup_invalid', `the manifest names a file outside the backup: ${JSON.stringify(relative)}`);
  return full;
}

function parseManifest(file: string): BackupManifest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new AppError('backup_invalid', `${file} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  const manifest = parsed as Partial<BackupManifest> | null;
  if (manifest?.format !== FORMAT || manifest.version !== VERSION)
    throw new AppError('backup_invalid', `${file} is not a version ${VERSION} Sightline backup manifest`);
  const filesOk =
    Array.isArray(manifest.files) &&
    manifest.files.every(
      (entry: Partial<BackupFile>) =>
        typeof entry.path === 'string' && typeof entry.bytes === 'number' && typeof entry.sha256 === 'string',
    );
  if (!filesOk || !Array.isArray(manifest.migrations))
    throw new AppError('backup_invalid', `${file} lacks its files or migrations list`);
  return manifest as BackupManifest;
}

function fsyncFile(file: string): void {
  const fd = fs.openSync(file, 'r+');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function writeFileDurably(file: string, text: string): void {
  const partial = `${file}.partial`;
  fs.writeFileSync(partial, text);
  fsyncFile(partial);
  fs.renameSync(partial, file);
}
