/**
 * What every benchmark figure module shares. A module in bench/figures/ exports
 * `run(): Promise<Figure[]>`; bench/run.ts lists the modules, prints one table and writes
 * bench/results.json. Every figure is a ratio against a baseline measured in the same run.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

export interface Goal {
  /** What the goal bounds: the ratio value/baseline (the default) or the value itself. */
  on?: 'ratio' | 'value';
  max?: number;
  min?: number;
}

export interface Figure {
  /** Stable id, e.g. `ingest.transactions.wall`. */
  id: string;
  title: string;
  unit: string;
  value: number;
  baseline: number;
  /** What the baseline is, e.g. `raw better-sqlite3 insert`. */
  baselineLabel: string;
  ratio: number;
  goal?: Goal | undefined;
  /** undefined when there is no goal. */
  met?: boolean | undefined;
  note?: string | undefined;
}

export function figure(f: Omit<Figure, 'ratio' | 'met'>): Figure {
  const ratio = f.baseline === 0 ? Number.NaN : f.value / f.baseline;
  let met: boolean | undefined;
  if (f.goal) {
    const x = f.goal.on === 'value' ? f.value : ratio;
    met = (f.goal.max === undefined || x <= f.goal.max) && (f.goal.min === undefined || x >= f.goal.min);
  }
  return { ...f, ratio, met };
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

export function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

/** Bytes this process has caused to be written to storage so far (Linux /proc/self/io), or NaN. */
export function bytesWritten(): number {
  try {
    const m = /write_bytes:\s*(\d+)/.exec(readFileSync('/proc/self/io', 'utf8'));
    return m ? Number(m[1]) : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

export interface Cost {
  wallMs: number;
  /** User + system CPU of this process, ms. */
  cpuMs: number;
  bytesWritten: number;
}

/** Wall time, CPU time and bytes written by `fn` (in this process). */
export async function cost(fn: () => Promise<unknown> | unknown): Promise<Cost> {
  const cpu = process.cpuUsage();
  const bytes = bytesWritten();
  const t = performance.now();
  await fn();
  const wallMs = performance.now() - t;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000, bytesWritten: bytesWritten() - bytes };
}
