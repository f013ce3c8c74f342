// The local monitoring sink: append-only NDJSON files in <dataDir>/ai-monitoring/, one per kind and
// UTC day, readable by the server's user only (they hold case data). Writes are serialised so that
// concurrent records never interleave; files are kept indefinitely unless retentionDays > 0.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import {
  settled,
  type FeedbackRecord,
  type GenerationRecord,
  type MonitoringSettings,
  type MonitoringSink,
} from './monitoring-sink.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

type Kind = 'generation' | 'feedback';
const FILE_PREFIX: Record<Kind, string> = { generation: 'generations', feedback: 'feedback' };
const FILE_PATTERN = /^(?:generations|feedback)-(\d{4}-\d{2}-\d{2})\.ndjson$/;

export interface LocalSinkOptions {
  /** The clock (tests move it); Date.now by default. */
  now?: () => number;
}

export const monitoringDir = (dataDir: string): string => path.join(dataDir, 'ai-monitoring');

/** The UTC day of a time, as YYYY-MM-DD. */
export const utcDay = (time: number): string => new Date(time).toISOString().slice(0, 10);

/** `<dataDir>/ai-monitoring/generations-YYYY-MM-DD.ndjson` or `feedback-YYYY-MM-DD.ndjson`. */
export const monitoringFile = (dataDir: string, kind: Kind, time: number): string =>
  path.join(monitoringDir(dataDir), `${FILE_PREFIX[kind]}-${utcDay(time)}.ndjson`);

export function createLocalSink(
  settings: Pick<MonitoringSettings, 'dataDir' | 'retentionDays'>,
  options: LocalSinkOptions = {},
): MonitoringSink {
  if (!settings.dataDir) throw new Error('the local monitoring sink needs a data directory');
  if (!Number.isInteger(settings.retentionDays) || settings.retentionDays < 0) {
    throw new Error(
      `monitoring retention must be a whole number of days, 0 for indefinite (got ${settings.retentionDays})`,
    );
  }
  const dir = monitoringDir(settings.dataDir);
  const now = options.now ?? Date.now;
  const retentionDays = settings.retentionDays;
  /** Paths whose mode this process has already made owner-only (a file may predate it, or the umask). */
  const secured = new Set<string>();
  let lastSweep = Number.NEGATIVE_INFINITY;
  let queue: Promise<void> = Promise.resolve();
  let closed = false;

  async function secure(target: string, mode: number): Promise<void> {
    if (secured.has(target)) return;
    await fs.chmod(target, mode);
    secured.add(target);
  }

  /** Deletes the daily files every record of which is older than retentionDays. */
  async function sweep(time: number): Promise<void> {
    const threshold = time - (retentionDays + 1) * DAY_MS;
    for (const name of await fs.readdir(dir)) {
      const day = FILE_PATTERN.exec(name)?.[1];
      if (day === undefined) continue;
      const dayStart = Date.parse(`${day}T00:00:00.000Z`);
      if (Number.isNaN(dayStart) || dayStart > threshold) continue;
      const file = path.join(dir, name);
      await fs.rm(file, { force: true });
      secured.delete(file);
    }
  }

  async function write(kind: Kind, line: string): Promise<void> {
    const time = now();
    await fs.mkdir(dir, { recursive: true, mode: DIR_MODE });
    await secure(dir, DIR_MODE);
    const file = monitoringFile(settings.dataDir, kind, time);
    await fs.appendFile(file, line, { mode: FILE_MODE });
    await secure(file, FILE_MODE);
    if (retentionDays > 0 && time - lastSweep >= HOUR_MS) {
      lastSweep = time;
      try {
        await sweep(time);
      } catch (error) {
        throw new Error(`the record was kept, but the monitoring retention sweep of ${dir} failed`, { cause: error });
      }
    }
  }

  function enqueue(kind: Kind, record: GenerationRecord | FeedbackRecord): Promise<void> {
    if (closed) return Promise.reject(new Error('the local monitoring sink is closed'));
    // Serialised now, so a caller changing the record afterwards changes nothing; JSON.stringify
    // escapes every line break, so a record is exactly one line.
    const line = `${JSON.stringify({ type: kind, ...record })}\n`;
    const task = queue.then(() => write(kind, line));
    queue = settled(task);
    return task;
  }

  return {
    name: 'local',
    recordGeneration: (record) => enqueue('generation', record),
    recordFeedback: (record) => enqueue('feedback', record),
    async close() {
      closed = true;
      await queue;
    },
  };
}
