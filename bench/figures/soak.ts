/**
 * Memory that stays flat (issue 16): the soak (test/soak/soak.ts) run for 30 minutes × `--scale`,
 * `start` with every job on schedules of seconds against the simulator, and the slope of each
 * memory series over its second half, per 10,000 runs. Goal: under 5 MiB per 10,000 runs for the
 * collector's and the simulator's RSS and the collector's heap; Redis keys beyond the jobs BullMQ
 * keeps, flat. The baseline is each series' own median, so the ratio reads as "share of the level
 * gained per 10,000 runs".
 */
import { runSoak } from '../../test/soak/soak.js';
import { type Figure, figure, scaled } from '../lib.js';

const MiB = 2 ** 20;

/** The series reported, and each one's goal per 10,000 runs (bytes series in MiB). */
const GOALS: Record<string, { id: string; max: number }> = {
  'collector RSS': { id: 'soak.collector-rss', max: 5 },
  'collector RSS, anonymous': { id: 'soak.collector-rss-anon', max: 5 },
  'collector heap used': { id: 'soak.collector-heap', max: 5 },
  'simulator RSS': { id: 'soak.simulator-rss', max: 5 },
  'Redis keys (beyond the jobs BullMQ keeps)': { id: 'soak.redis-keys', max: 1 },
};

export async function run(): Promise<Figure[]> {
  const minutes = scaled(30, 3);
  const report = await runSoak({ durationMs: minutes * 60_000, warmupMs: 60_000 });
  const note = `${report.runs} runs in ${minutes} min, ${report.store}; ${report.problems.length === 0 ? 'soak passed' : `soak failed: ${report.problems.join('; ')}`}`;
  return report.series.flatMap((s) => {
    const goal = GOALS[s.name];
    if (!goal) return [];
    const scale = s.unit === 'bytes' ? MiB : 1;
    return [
      figure({
        id: goal.id,
        title: `${s.name}: growth per 10,000 runs (second half)`,
        unit: s.unit === 'bytes' ? 'MiB' : 'keys',
        value: s.per10kRuns / scale,
        baseline: s.median / scale,
        baselineLabel: 'the series median (its level)',
        goal: { on: 'value', max: goal.max },
        note,
      }),
    ];
  });
}
