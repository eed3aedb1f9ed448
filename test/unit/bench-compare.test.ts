import { describe, expect, it } from 'vitest';
import { compareFigures, formatComparison } from '../../bench/compare.js';

const f = (id: string, value: number, baseline: number, goal?: { min?: number; max?: number }) => ({
  id,
  value,
  ratio: baseline === 0 ? Number.NaN : value / baseline,
  goal,
});

describe('npm run bench -- --compare', () => {
  it.each([
    // id, recorded (value, baseline), now (value, baseline), goal, worse
    ['max goal, ratio up 20%', [100, 100], [120, 100], { max: 1.2 }, true],
    ['max goal, ratio up 10%', [100, 100], [110, 100], { max: 1.2 }, false],
    ['max goal, absolute time doubled but the baseline too', [100, 50], [200, 100], { max: 1.2 }, false],
    ['max goal, ratio down', [100, 100], [50, 100], { max: 1.2 }, false],
    ['min goal (throughput), ratio down 20%', [100, 100], [80, 100], { min: 0.8 }, true],
    ['min goal, ratio up', [80, 100], [100, 100], { min: 0.8 }, false],
    ['no goal: lower is better', [100, 100], [130, 100], undefined, true],
    ['no baseline (0 requests): values compared', [2, 0], [3, 0], { max: 0 }, true],
    ['no baseline, same value', [0, 0], [0, 0], { max: 0 }, false],
  ] as const)('%s', (_name, before, after, goal, worse) => {
    const [c] = compareFigures([f('x', before[0], before[1], goal)], [f('x', after[0], after[1], goal)]);
    expect(c!.worse).toBe(worse);
  });

  it('a figure never recorded is new, not worse', () => {
    const [c] = compareFigures([], [f('new', 1, 1)]);
    expect(c).toMatchObject({ worse: false, before: undefined, change: undefined });
  });

  it('names every worse figure', () => {
    const text = formatComparison(
      compareFigures(
        [f('a', 1, 1, { max: 2 }), f('b', 1, 1, { max: 2 }), f('c', 1, 1)],
        [f('a', 2, 1, { max: 2 }), f('b', 1, 1, { max: 2 }), f('c', 3, 1)],
      ),
    );
    expect(text).toContain('2 figure(s) more than 15% worse: a, c');
  });
});
