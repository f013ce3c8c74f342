// Reads a Sigma rule package — a zip such as SigmaHQ's sigma_core.zip, or a folder — into a
// staging directory, refusing anything that could write outside it or exhaust the disk: the
// limits below are the ones docs/detection.md ("Importing a rule package") documents. Only rule files
// (.yml/.yaml) and licence texts are copied; the YAML is copied byte for byte, so authors'
// attribution stays with each rule.
import fs from 'node:fs';
import path from 'node:path';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { AppError, errorMessage } from '../core/errors.js';
import { hasControlCharacter } from '../core/control-characters.js';

export const PACKAGE_LIMITS = {
  /** Entries in a zip (directories included) or files walked in a folder. */
  maxEntries: 20_000,
  /** One rule file, uncompressed. */
  maxFileBytes: 1024 * 1024,
  /** Every copied file together, uncompressed. */
  maxTotalBytes: 200 * 1024 * 1024,
  /** An entry's path inside the package. */
  maxPathLength: 512,
};

export type PackageLimits = typeof PACKAGE_LIMITS;

/** What the package holds that an import keeps. */
export function isKeptFile(relative: string): boolean {
  const name = path.posix.basename(relative);
  return /\.ya?ml$/i.test(name) || /^(licen[cs]e|copying|notice)(\.[a-z]+)?$/i.test(name);
}

/**
 * The entry's path as a safe relative path inside the package, or an error naming it: no
 * absolute paths, drive letters, backslashes, `..` or empty segments, control characters.
 */
export function safeRelativePath(name: string, where: string, limits: PackageLimits): string {
  const unsafe = (why: string) =>
    new AppError('rule_package_unsafe_entry', `${where}: entry "${name.slice(0, 200)}" ${why}; nothing was imported`);
  if (name.length > limits.maxPathLength) throw unsafe(`is longer than ${limits.maxPathLength} characters`);
  if (name.includes('\\') || hasControlCharacter(name)) throw unsafe('contains a backslash or a control character');
  if (name.startsWith('/') || /^[a-zA-Z]:/.test(name)) throw unsafe('is an absolute path');
  const trimmed = name.endsWith('/') ? name.slice(0, -1) : name;
  const segments = trimmed.split('/');
  if (segments.some((segment) => segment === '..' || segment === '' || segment === '.'))
    throw unsafe('leaves the package or has an empty or "." segment');
  return trimmed;
}

class Budget {
  private entries = 0;
  private bytes = 0;
  constructor(
    private readonly where: string,
    private readonly limits: PackageLimits,
  ) {}

  entry(): void {
    this.entries += 1;
    if (this.entries > this.limits.maxEntries)
      throw new AppError(
        'rule_package_too_large',
        `${this.where}: more than ${this.limits.maxEntries} entries; nothing was imported`,
      );
  }

  /** Counts bytes as they are really read, whatever the zip's headers claim. */
  add(relative: string, fileBytes: number, delta: number): void {
    this.bytes += delta;
    if (fileBytes > this.limits.maxFileBytes)
      throw new AppError(
        'rule_package_too_large',
        `${this.where}: ${relative} is larger than ${this.limits.maxFileBytes} bytes uncompressed; nothing was imported`,
      );
    if (this.bytes > this.limits.maxTotalBytes)
      throw new AppError(
        'rule_package_too_large',
        `${this.where}: more than ${this.limits.maxTotalBytes} bytes uncompressed in all; nothing was imported`,
      );
  }
}

/** Copies the package's rule files into `staging` (an empty directory); returns how many. */
export async function extractPackage(source: string, staging: string, limits = PACKAGE_LIMITS): Promise<number> {
  const stat = statOrFail(source);
  if (stat.isDirectory()) return copyFolder(source, staging, limits);
  return extractZip(source, staging, limits);
}

function statOrFail(source: string): fs.Stats {
  try {
    return fs.statSync(source);
  } catch (error) {
    throw new AppError('rule_package_invalid', `${source}: cannot be read (${errorMessage(error)})`);
  }
}

function copyFolder(root: string, staging: string, limits: PackageLimits): number {
  const budget = new Budget(root, limits);
  let copied = 0;
  const walk = (relativeDir: string): void => {
    const dir = path.join(root, relativeDir);
    const entries = fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      budget.entry();
      const relative = relativeDir === '' ? entry.name : `${relativeDir}/${entry.name}`;
      safeRelativePath(relative, root, limits);
      if (entry.isSymbolicLink())
        throw new AppError(
          'rule_package_unsafe_entry',
          `${root}: ${relative} is a symbolic link, which an import does not follow; nothing was imported`,
        );
      if (entry.isDirectory()) walk(relative);
      else if (entry.isFile() && isKeptFile(relative)) {
        const size = fs.statSync(path.join(root, relative)).size;
        budget.add(relative, size, size);
        const target = path.join(staging, relative);
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.copyFileSync(path.join(root, relative), target, fs.constants.COPYFILE_EXCL);
        if (/\.ya?ml$/i.test(relative)) copied += 1;
      }
    }
  };
  walk('');
  return copied;
}

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

async function extractZip(file: string, staging: string, limits: PackageLimits): Promise<number> {
  const zip = await new Promise<ZipFile>((resolve, reject) => {
    // Names are decoded and checked here (safeRelativePath), so a refusal names the entry and
    // says why; sizes are validated by yauzl against the bytes really inflated.
    const options = { lazyEntries: true, autoClose: true, validateEntrySizes: true, decodeStrings: false };
    yauzl.open(file, options, (error, opened) => {
      if (error)
        reject(
          new AppError(
            'rule_package_invalid',
            `${file}: not a readable zip archive (${error.message}); nothing was imported`,
          ),
        );
      else resolve(opened);
    });
  });
  const budget = new Budget(file, limits);
  if (zip.entryCount > limits.maxEntries) {
    zip.close();
    throw new AppError(
      'rule_package_too_large',
      `${file}: ${zip.entryCount} entries, more than ${limits.maxEntries}; nothing was imported`,
    );
  }
  let copied = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      const fail = (error: unknown) => {
        zip.close();
        reject(
          error instanceof AppError
            ? error
            : new AppError(
                'rule_package_invalid',
                `${file}: damaged zip archive (${errorMessage(error)}); nothing was imported`,
              ),
        );
      };
      zip.on('error', fail);
      zip.on('end', () => resolve());
      zip.on('entry', (entry: Entry) => {
        try {
          budget.entry();
          const relative = safeRelativePath(entryName(entry), file, limits);
          if (((entry.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK)
            throw new AppError(
              'rule_package_unsafe_entry',
              `${file}: ${relative} is a symbolic link; nothing was imported`,
            );
          if (entryName(entry).endsWith('/') || !isKeptFile(relative)) {
            zip.readEntry();
            return;
          }
          // The header's size is checked first; the bytes really inflated are counted below.
          budget.add(relative, entry.uncompressedSize, 0);
          writeEntry(zip, entry, path.join(staging, relative), (bytes, total) => budget.add(relative, total, bytes))
            .then(() => {
              if (/\.ya?ml$/i.test(relative)) copied += 1;
              zip.readEntry();
            })
            .catch((error: unknown) =>
              fail(
                error instanceof AppError
                  ? error
                  : new AppError(
                      'rule_package_invalid',
                      `${file}: entry ${relative} is damaged (${errorMessage(error)}); nothing was imported`,
                    ),
              ),
            );
        } catch (error) {
          fail(error);
        }
      });
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
  return copied;
}

/** The entry's name: UTF-8 when its flag says so, else the bytes one for one (CP437's ASCII part). */
function entryName(entry: Entry): string {
  return entry.fileNameRaw.toString((entry.generalPurposeBitFlag & 0x800) !== 0 ? 'utf8' : 'latin1');
}

function writeEntry(
  zip: ZipFile,
  entry: Entry,
  target: string,
  counted: (bytes: number, total: number) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (error, stream) => {
      if (error) {
        reject(error);
        return;
      }
      fs.mkdirSync(path.dirname(target), { recursive: true });
      const out = fs.createWriteStream(target, { flags: 'wx' });
      let total = 0;
      stream.on('data', (chunk: Buffer) => {
        total += chunk.length;
        try {
          counted(chunk.length, total);
        } catch (limit) {
          stream.destroy();
          out.destroy();
          reject(limit instanceof Error ? limit : new Error(String(limit)));
        }
      });
      stream.on('error', (streamError) => {
        out.destroy();
        reject(streamError);
      });
      out.on('error', reject);
      out.on('finish', () => resolve());
      stream.pipe(out);
    });
  });
}
