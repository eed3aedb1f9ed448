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

/** Settings of one `npm run bench`, from its flags (bench/run.ts sets them before any module runs). */
export interface BenchOptions {
  /** Repetitions of each measurement; figures are their medians. @defaultValue 3 */
  runs: number;
  /** Scale of the data sets (1 = as the issue states them; 0.1 for a quick look). @defaultValue 1 */
  scale: number;
}

let options: BenchOptions = { runs: 3, scale: 1 };

export function benchOptions(): BenchOptions {
  return options;
}

export function setBenchOptions(next: Partial<BenchOptions>): void {
  options = { ...options, ...next };
}

/** `n` scaled by the bench's `--scale`, at least `min`. */
export function scaled(n: number, min = 1): number {
  return Math.max(min, Math.round(n * options.scale));
}

/** The median of each field of several measurements of the same thing. */
export function medianCost(costs: readonly Cost[]): Cost {
  return {
    wallMs: median(costs.map((c) => c.wallMs)),
    cpuMs: median(costs.map((c) => c.cpuMs)),
    bytesWritten: median(costs.map((c) => c.bytesWritten)),
  };
}

/**
 * Three figures from one comparison: wall time, CPU time and bytes written of `value` against
 * `baseline` (the disk is noisy at fsync, so wall time alone can swing by half). `goal` bounds the
 * wall-time ratio; `cpuGoal` and `bytesGoal` the others when given.
 */
export function costFigures(f: {
  id: string;
  title: string;
  value: Cost;
  baseline: Cost;
  baselineLabel: string;
  goal?: Goal;
  cpuGoal?: Goal;
  bytesGoal?: Goal;
  note?: string;
}): Figure[] {
  const fields = [
    { key: 'wall', what: 'wall time', unit: 'ms', read: (c: Cost) => c.wallMs, goal: f.goal, note: f.note },
    {
      key: 'cpu',
      what: 'CPU time',
      unit: 'ms',
      read: (c: Cost) => c.cpuMs,
      goal: f.cpuGoal,
      note: undefined,
    },
    {
      key: 'bytes',
      what: 'bytes written',
      unit: 'B',
      read: (c: Cost) => c.bytesWritten,
      goal: f.bytesGoal,
      note: undefined,
    },
  ];
  return fields.map((x) =>
    figure({
      id: `${f.id}.${x.key}`,
      title: `${f.title}: ${x.what}`,
      unit: x.unit,
      value: x.read(f.value),
      baseline: x.read(f.baseline),
      baselineLabel: f.baselineLabel,
      goal: x.goal,
      note: x.note,
    }),
  );
}
