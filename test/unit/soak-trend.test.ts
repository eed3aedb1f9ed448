import { describe, expect, it } from 'vitest';
import { judgeTrend, mannKendallZ, type Point, theilSenSlope } from '../soak/trend.js';

/** A deterministic noise source in [-1, 1). */
function noise(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return (s / 2 ** 32) * 2 - 1;
  };
}

const series = (n: number, f: (x: number) => number): Point[] =>
  Array.from({ length: n }, (_, i) => ({ x: i * 10, y: f(i * 10) }));

describe('the soak trend test', () => {
  it('recovers a slope through outliers (Theil–Sen)', () => {
    const points = series(40, (x) => 100 + 0.5 * x);
    points[7] = { x: 70, y: 10_000 };
    points[30] = { x: 300, y: -5_000 };
    expect(theilSenSlope(points)).toBeCloseTo(0.5, 6);
  });

  it.each([
    ['flat noise', (r: () => number) => () => 150 + 3 * r()],
    ['a GC sawtooth', () => (x: number) => 150 + ((x / 10) % 7) * 4],
    ['a drift below the tolerance', (r: () => number) => (x: number) => 150 + 0.002 * x + r()],
  ])('passes %s', (_name, shape) => {
    const points = series(60, shape(noise(3)));
    expect(judgeTrend(points, 5).growing).toBe(false);
  });

  it('fails a steady rise above the tolerance, and reports how much it grew', () => {
    const points = series(
      60,
      (
        (r) => (x: number) =>
          150 + 0.05 * x + 3 * r()
      )(noise(5)),
    );
    const trend = judgeTrend(points, 5);
    expect(trend.growing).toBe(true);
    expect(trend.z).toBeGreaterThan(2.326);
    expect(trend.growth).toBeGreaterThan(25);
    expect(trend.growth).toBeLessThan(35);
  });

  it('passes growth that levels off: the second half of a rise to a cap is flat', () => {
    const r = noise(9);
    const all = series(80, (x) => Math.min(200, 100 + 0.4 * x) + r());
    expect(judgeTrend(all.slice(40), 5).growing).toBe(false);
    expect(judgeTrend(all, 5).growing).toBe(true);
  });

  it('needs a significant rise: Mann–Kendall is 0 for constant series and few points', () => {
    expect(mannKendallZ(series(30, () => 7))).toBe(0);
    expect(mannKendallZ(series(2, (x) => x))).toBe(0);
    expect(mannKendallZ(series(30, (x) => -x))).toBeLessThan(-2.326);
  });
});
