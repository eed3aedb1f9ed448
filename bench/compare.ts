/**
 * `npm run bench -- --compare`: a run held against the last recorded results (bench/results.json).
 * Ratios are compared, not absolute times (each ratio's baseline ran on the same machine in the
 * same run); a figure is worse when its ratio moved the wrong way by more than `threshold`. The
 * wrong way is the goal's: up for a `max`, down for a `min`; a figure without a goal is taken as
 * "lower is better". A ratio without a baseline (0 requests...) compares the values instead.
 */
import type { Figure } from './lib.js';

export interface Comparison {
  id: string;
  /** The recorded figure's ratio (or value), undefined when it was never recorded. */
  before: number | undefined;
  after: number;
  /** after / before, oriented so that > 1 is worse. */
  change: number | undefined;
  worse: boolean;
  /** Whether the numbers are ratios or values (a ratio without a baseline). */
  on: 'ratio' | 'value';
}

const finite = (x: number | null | undefined): x is number => typeof x === 'number' && Number.isFinite(x);

export function compareFigures(
  recorded: readonly Pick<Figure, 'id' | 'ratio' | 'value' | 'goal'>[],
  measured: readonly Pick<Figure, 'id' | 'ratio' | 'value' | 'goal'>[],
  threshold = 0.15,
): Comparison[] {
  const byId = new Map(recorded.map((f) => [f.id, f]));
  return measured.map((f) => {
    const old = byId.get(f.id);
    const on = finite(f.ratio) && (old === undefined || finite(old.ratio)) ? 'ratio' : 'value';
    const after = on === 'ratio' ? f.ratio : f.value;
    const before = old === undefined ? undefined : on === 'ratio' ? old.ratio : old.value;
    if (!finite(before) || !finite(after))
      return { id: f.id, before, after, change: undefined, worse: false, on };
    const higherIsWorse = f.goal?.min === undefined || f.goal.max !== undefined;
    let change: number;
    if (before === after) change = 1;
    else if (higherIsWorse) change = before === 0 ? Number.POSITIVE_INFINITY : after / before;
    else change = after === 0 ? Number.POSITIVE_INFINITY : before / after;
    return { id: f.id, before, after, change, worse: change > 1 + threshold, on };
  });
}

export function formatComparison(rows: readonly Comparison[], threshold = 0.15): string {
  const n = (x: number | undefined) =>
    x === undefined || !Number.isFinite(x) ? '-' : Math.abs(x) >= 100 ? x.toFixed(0) : x.toFixed(3);
  const change = (c: Comparison) =>
    c.change === undefined ? 'new' : `${c.change >= 1 ? '+' : ''}${((c.change - 1) * 100).toFixed(1)}%`;
  const table = rows.map((c) => [c.id, c.on, n(c.before), n(c.after), change(c), c.worse ? 'WORSE' : '']);
  const header = ['figure', 'on', 'recorded', 'now', 'change (+ worse)', ''];
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const worse = rows.filter((c) => c.worse);
  return [
    `compared with bench/results.json (worse: the ratio moved the wrong way by more than ${threshold * 100}%)`,
    '',
    line(header),
    line(widths.map((w) => '-'.repeat(w))),
    ...table.map(line),
    '',
    worse.length
      ? `${worse.length} figure(s) more than ${threshold * 100}% worse: ${worse.map((c) => c.id).join(', ')}`
      : 'no figure more than 15% worse',
  ].join('\n');
}
