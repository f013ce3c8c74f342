// What bench:scale measures beside time: the records it sends (bench lines for the record path,
// or the demo traffic's mix of Windows, web, Linux, Kubernetes and application records with
// attacks woven in, which the bundled rules fire on), and each process's CPU time and peak
// resident memory read from /proc, so per-core figures do not depend on what else the machine runs.
import fs from 'node:fs';
import { createTraffic } from '../../src/demo/traffic.js';

/** Distinct demo records cycled through: enough that windows and devices see varied data. */
const TRAFFIC_POOL = 100_000;

export type RecordSource = (n: number) => string;

/** The record path alone: short uniform lines no rule looks at. */
export function benchLine(n: number): string {
  return `{"message":"bench record ${n} user=u${n % 97} action=login result=ok","n":${n},"host":"h${n % 13}"}`;
}

/** The demo traffic (seeded, so every run sends the same), each record numbered. */
export function trafficLines(start: number): RecordSource {
  const traffic = createTraffic({ seed: 1, start, rate: TRAFFIC_POOL / 100 });
  const pool = traffic
    .next(start + 100_000)
    .slice(0, TRAFFIC_POOL)
    .map((item) => JSON.stringify(item.record).slice(0, -1));
  return (n) => `${pool[n % pool.length] ?? '{'},"bench_n":${n}}`;
}

export interface ProcessUse {
  /** User + system CPU seconds since the process started. */
  cpuSeconds: number;
  /** Peak resident set (VmHWM), MiB. */
  peakRssMiB: number;
}

const TICKS_PER_SECOND = 100;

/** CPU time and peak memory of a running process; zeros once it is gone. */
export function processUse(pid: number | undefined): ProcessUse {
  if (pid === undefined) return { cpuSeconds: 0, peakRssMiB: 0 };
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const hwm = Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? 0);
    return { cpuSeconds: ticks / TICKS_PER_SECOND, peakRssMiB: Math.round(hwm / 1024) };
  } catch (error) {
    // The process has exited: nothing left to measure.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { cpuSeconds: 0, peakRssMiB: 0 };
    throw error;
  }
}

/** CPU seconds of the processes between two readings (by pid). */
export function cpuBetween(before: Map<number, ProcessUse>, pids: number[]): number {
  return pids.reduce((sum, pid) => sum + processUse(pid).cpuSeconds - (before.get(pid)?.cpuSeconds ?? 0), 0);
}

export function readUse(pids: number[]): Map<number, ProcessUse> {
  return new Map(pids.map((pid) => [pid, processUse(pid)]));
}

export function round(value: number, digits = 0): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
